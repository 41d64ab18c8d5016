// The P4_16 language as real pipelines use it (P4_16 specification v1.2.x, appendix grammar),
// written for softswitch. As in the specification's grammar, identifiers that name types are
// lexed as TYPE_IDENT (TypeNameScanner retags them) so that casts and declarations parse
// without a symbol table inside the parser. For the same reason the angle brackets of a call's
// type arguments (extract<h_t>(x)) are retagged TYPE_ARGS_OPEN/TYPE_ARGS_CLOSE, so that the
// call is not read as the comparisons (extract < h_t) > (x).
grammar P4;

tokens { TYPE_IDENT, TYPE_ARGS_OPEN, TYPE_ARGS_CLOSE }

program : declaration* EOF ;

declaration
    : constantDeclaration
    | externDeclaration
    | actionDeclaration
    | parserDeclaration
    | controlDeclaration
    | typeDeclaration
    | instantiation
    | errorDeclaration
    | matchKindDeclaration
    | functionDeclaration
    | valueSetDeclaration
    | parserTypeDeclaration ';'
    | controlTypeDeclaration ';'
    | packageTypeDeclaration ';'
    | ';'
    ;

// ---- names and annotations ----
name : IDENT | TYPE_IDENT | TYPE | KEY | ACTIONS | ENTRIES | STATE | APPLY | PRIORITY | STRING_KW | LIST ;
annotations : annotation+ ;
// An unstructured annotation's body is any tokens with balanced parentheses (P4_16 7.1.5); read as
// expressions where it is those (the first alternative wins where both fit). A structured one
// (@name[...]) holds expressions or key-value pairs.
annotation
    : '@' name ( '(' annotationArgs? ')' | '(' annotationBody ')' | '[' structuredAnnotationBody? ']' )?
    ;
annotationArgs : expression (',' expression)* | kvPair (',' kvPair)* ;
annotationBody : ( '(' annotationBody? ')' | ~( '(' | ')' ) )+ ;
structuredAnnotationBody : annotationArgs ','? ;
kvPair : name '=' expression ;

// ---- parameters and type parameters ----
parameterList : ( parameter (',' parameter)* )? ;
parameter : annotations? direction? typeRef name ( '=' expression )? ;
direction : IN | OUT | INOUT ;
typeParameters : '<' name (',' name)* '>' ;
typeArgumentList : typeArg (',' typeArg)* ;
typeArg : typeRef | DONTCARE ;

// ---- types ----
typeRef
    : baseType                                  # baseTypeRef
    | typeRef '[' expression ']'                # stackTypeRef
    | TUPLE '<' typeArgumentList? '>'           # tupleTypeRef
    | typeName ( '<' typeArgumentList '>' )?    # namedTypeRef
    ;
baseType
    : BOOL
    | ERROR
    | STRING_KW
    | BIT ( '<' widthExpr '>' )?
    | INT ( '<' widthExpr '>' )?
    | VARBIT '<' widthExpr '>'
    | VOID
    ;
widthExpr : INTEGER | '(' expression ')' ;
typeName : TYPE_IDENT | '.' TYPE_IDENT ;

typeDeclaration
    : annotations? HEADER name typeParameters? '{' structField* '}'             # headerDeclaration
    | annotations? HEADER_UNION name typeParameters? '{' structField* '}'       # headerUnionDeclaration
    | annotations? STRUCT name typeParameters? '{' structField* '}'             # structDeclaration
    | annotations? ENUM name '{' name (',' name)* ','? '}'                      # enumDeclaration
    | annotations? ENUM typeRef name '{' enumMember (',' enumMember)* ','? '}'  # serEnumDeclaration
    | annotations? TYPEDEF typeRef name ';'                                     # typedefDeclaration
    | annotations? TYPEDEF typeDeclaration name ';'                             # typedefOfDeclaration
    | annotations? TYPE typeRef name ';'                                        # newTypeDeclaration
    ;
structField : annotations? typeRef name ';' ;
enumMember : name '=' expression ;

errorDeclaration : ERROR '{' name (',' name)* ','? '}' ;
matchKindDeclaration : MATCH_KIND '{' name (',' name)* ','? '}' ;

constantDeclaration : annotations? CONST typeRef name '=' expression ';' ;
variableDeclaration : annotations? typeRef name ( '=' expression )? ';' ;

// ---- externs, packages, parser/control types ----
externDeclaration
    : annotations? EXTERN name typeParameters? '{' methodPrototype* '}'   # externObject
    | annotations? EXTERN functionPrototype ';'                          # externFunction
    ;
methodPrototype
    : annotations? functionPrototype ';'
    | annotations? ABSTRACT functionPrototype ';'
    | annotations? name '(' parameterList ')' ';'   // constructor
    ;
functionPrototype : typeRef name typeParameters? '(' parameterList ')' ;
parserTypeDeclaration : annotations? PARSER name typeParameters? '(' parameterList ')' ;
controlTypeDeclaration : annotations? CONTROL name typeParameters? '(' parameterList ')' ;
packageTypeDeclaration : annotations? PACKAGE name typeParameters? '(' parameterList ')' ;

instantiation : annotations? typeRef '(' argumentList ')' name ';' ;

functionDeclaration : annotations? functionPrototype blockStatement ;

// ---- parsers ----
parserDeclaration
    : parserTypeDeclaration ( '(' parameterList ')' )? '{' parserLocalElement* parserState+ '}' ;
parserLocalElement : constantDeclaration | variableDeclaration | instantiation | valueSetDeclaration ;
valueSetDeclaration : annotations? VALUE_SET '<' typeArg '>' '(' expression ')' name ';' ;
parserState : annotations? STATE name '{' parserStatement* transitionStatement? '}' ;
parserStatement
    : assignmentOrCall
    | variableDeclaration
    | constantDeclaration
    | '{' parserStatement* '}'
    | conditionalParserStatement
    | ';'
    ;
conditionalParserStatement : IF '(' expression ')' parserStatement ( ELSE parserStatement )? ;
transitionStatement : TRANSITION stateExpression ;
stateExpression : name ';' | selectExpression ;
selectExpression : SELECT '(' expressionList ')' '{' selectCase* '}' ;
selectCase : keysetExpression ':' name ';' ;
// `(5)` is a value in parentheses (first alternative); `(a &&& b)` a one-element tuple keyset (P4_16 12.6)
keysetExpression
    : simpleKeyset                                # singleKeyset
    | '(' simpleKeyset ( ',' simpleKeyset )* ')'   # tupleKeyset
    ;
simpleKeyset
    : DEFAULT                          # defaultKeyset
    | DONTCARE                         # dontCareKeyset
    | expression MASK expression       # maskKeyset
    | expression RANGE expression      # rangeKeyset
    | expression                       # valueKeyset
    ;

// ---- controls ----
controlDeclaration
    : controlTypeDeclaration ( '(' parameterList ')' )? '{' controlLocalDeclaration* APPLY blockStatement '}' ;
controlLocalDeclaration
    : constantDeclaration
    | actionDeclaration
    | tableDeclaration
    | instantiation
    | variableDeclaration
    ;
actionDeclaration : annotations? ACTION name '(' parameterList ')' blockStatement ;
// An empty '()' after the name, which p4c's samples write and p4c accepts, is allowed too.
tableDeclaration : annotations? TABLE name ( '(' ')' )? '{' tableProperty* '}' ;
tableProperty
    : KEY '=' '{' keyElement* '}'                                 # keyProperty
    | ACTIONS '=' '{' ( actionRef ';' )* '}'                      # actionsProperty
    | annotations? CONST? ENTRIES '=' '{' entry* '}'              # entriesProperty
    | annotations? CONST? name '=' expression ';'                 # simpleProperty
    ;
keyElement : expression ':' name annotations? ';' ;
actionRef : annotations? top='.'? name ( '(' argumentList ')' )? ;   // .a: the top-level a (P4_16 6.9)
entry : CONST? ( PRIORITY '=' expression ':' )? keysetExpression ':' actionRef annotations? ';' ;

// ---- statements ----
statement
    : assignmentOrCall
    | ifStatement
    | blockStatement
    | switchStatement
    | forStatement
    | BREAK ';'
    | CONTINUE ';'
    | EXIT ';'
    | RETURN expression? ';'
    | variableDeclaration
    | constantDeclaration
    | ';'
    ;
assignmentOrCall : expression ( assignOp expression )? ';' ;
// '=' and the compound assignments of P4_16 (a op= b)
assignOp : '=' | '+=' | '-=' | '*=' | '/=' | '%=' | '<<=' | '>>=' | '&=' | '^=' | '|=' | '|+|=' | '|-|=' ;
ifStatement : IF '(' expression ')' statement ( ELSE statement )? ;
// for loops (the P4_16 working draft after 1.2.5, as p4c accepts them): three clauses, or a variable over a range lo .. hi or a list
forStatement
    : annotations? FOR '(' forInit? ';' expression? ';' forUpdate? ')' statement                # threeClauseFor
    | annotations? FOR '(' typeRef name IN expression ( RANGE expression )? ')' statement      # forInLoop
    ;
forInit : forInitItem ( ',' forInitItem )* ;
forInitItem : typeRef name '=' expression | forUpdateItem ;
forUpdate : forUpdateItem ( ',' forUpdateItem )* ;
forUpdateItem : expression ( assignOp expression )? ;
blockStatement : annotations? '{' statement* '}' ;
switchStatement : SWITCH '(' expression ')' '{' switchCase* '}' ;
switchCase : switchLabel ':' blockStatement? ;
switchLabel : DEFAULT | name | expression ;

// ---- expressions: precedence as in the P4_16 specification (== binds looser than | ^ &) ----
argumentList : ( argument (',' argument)* )? ;
argument : name '=' expression | DONTCARE | expression ;
expressionList : ( expression (',' expression)* )? ;

expression
    : INTEGER                                                   # intLiteral
    | (TRUE | FALSE)                                            # boolLiteral
    | STRING_LITERAL                                            # stringLiteral
    | ERROR '.' name                                            # errorMember
    | '{' expressionList ','? '}'                               # listExpression
    | '{' kvPair (',' kvPair)* (',' DOTS)? ','? '}'             # structExpression
    | DOTS                                                      # defaultExpression
    | INVALID_HEADER                                            # invalidHeaderExpression
    | '(' expression ')'                                        # parenExpression
    | name                                                      # nameExpression
    | '.' name                                                  # topNameExpression
    | expression '.' name                                       # memberExpression
    | expression '[' expression '+' ':' expression ']'          # indexedSliceExpression
    | expression '[' expression ':' expression ']'              # sliceExpression
    | expression '[' expression ']'                             # indexExpression
    | expression TYPE_ARGS_OPEN typeArgumentList TYPE_ARGS_CLOSE '(' argumentList ')'  # genericCallExpression
    | expression '(' argumentList ')'                           # callExpression
    | '(' typeRef ')' expression                                # castExpression
    | op=('!' | '~' | '-' | '+') expression                     # unaryExpression
    | expression op=('*' | '/' | '%') expression                # mulExpression
    | expression op=('+' | '-' | '|+|' | '|-|' | '++') expression # addExpression
    | expression ( '<<' | '>' '>' ) expression                  # shiftExpression
    | expression '&' expression                                 # bitAndExpression
    | expression '^' expression                                 # bitXorExpression
    | expression '|' expression                                 # bitOrExpression
    | expression op=('<=' | '>=' | '<' | '>') expression        # relExpression
    | expression op=('==' | '!=') expression                    # eqExpression
    | expression '&&' expression                                # andExpression
    | expression '||' expression                                # orExpression
    | <assoc=right> expression '?' expression ':' expression    # condExpression
    ;

// ---- lexer ----
ABSTRACT : 'abstract' ;
ACTION : 'action' ;
ACTIONS : 'actions' ;
APPLY : 'apply' ;
BIT : 'bit' ;
BOOL : 'bool' ;
BREAK : 'break' ;
CONST : 'const' ;
CONTINUE : 'continue' ;
CONTROL : 'control' ;
DEFAULT : 'default' ;
ELSE : 'else' ;
ENTRIES : 'entries' ;
ENUM : 'enum' ;
ERROR : 'error' ;
EXIT : 'exit' ;
EXTERN : 'extern' ;
FALSE : 'false' ;
FOR : 'for' ;
HEADER : 'header' ;
HEADER_UNION : 'header_union' ;
IF : 'if' ;
IN : 'in' ;
INOUT : 'inout' ;
INT : 'int' ;
KEY : 'key' ;
LIST : 'list' ;
MATCH_KIND : 'match_kind' ;
OUT : 'out' ;
PACKAGE : 'package' ;
PARSER : 'parser' ;
PRIORITY : 'priority' ;
RETURN : 'return' ;
SELECT : 'select' ;
STATE : 'state' ;
STRING_KW : 'string' ;
STRUCT : 'struct' ;
SWITCH : 'switch' ;
TABLE : 'table' ;
TRANSITION : 'transition' ;
TRUE : 'true' ;
TUPLE : 'tuple' ;
TYPE : 'type' ;
TYPEDEF : 'typedef' ;
VALUE_SET : 'value_set' ;
VARBIT : 'varbit' ;
VOID : 'void' ;
DONTCARE : '_' ;
MASK : '&&&' ;
RANGE : '..' ;
// P4_16 8.26: a default value, or the rest of a list's or structure's fields at theirs.
DOTS : '...' ;
// P4_16 8.17: an invalid header or header union, of the type its context gives.
INVALID_HEADER : '{#}' ;

IDENT : [A-Za-z_] [A-Za-z0-9_]* ;
// Width-prefixed (8w5, 16s-1 is not a literal: the sign is an operator) and based literals.
INTEGER : [0-9]+ [ws] BASED_INT | BASED_INT ;
fragment BASED_INT
    : '0' [xX] [0-9a-fA-F_]+
    | '0' [bB] [01_]+
    | '0' [oO] [0-7_]+
    | '0' [dD] [0-9_]+
    | [0-9] [0-9_]*
    ;
STRING_LITERAL : '"' ( '\\' . | ~["\\\r\n] )* '"' ;

WS : [ \t\r\n\f]+ -> skip ;
LINE_COMMENT : '//' ~[\r\n]* -> skip ;
BLOCK_COMMENT : '/*' .*? '*/' -> skip ;
// Anything else is reported as a located syntax error by the parser's error listener.
UNEXPECTED : . ;
