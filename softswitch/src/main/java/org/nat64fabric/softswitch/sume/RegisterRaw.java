package org.nat64fabric.softswitch.sume;

import java.math.BigInteger;
import org.nat64fabric.softswitch.pipeline.CodeWriter;
import org.nat64fabric.softswitch.pipeline.Expr;
import org.nat64fabric.softswitch.pipeline.State;
import org.nat64fabric.softswitch.pipeline.Stmt;
import org.nat64fabric.softswitch.v1model.Externs;

/**
 * A call of P4-NetFPGA's RAW extern, {@code <name>_reg_raw(index, newVal, incVal, opCode, result)}
 * (P4-NetFPGA wiki, "RAW Extern Function"): atomically reads, overwrites (REG_WRITE, 1) or adds to
 * (REG_ADD, 2) the register's cell at index; result is the cell's value after the operation. The
 * register has 2^width(index) cells, which the host reads and writes through the card's register
 * interface (the program declares it with @Xilinx_ControlWidth equal to the index's width).
 */
public final class RegisterRaw extends Stmt {
    public static final String SUFFIX = "_reg_raw";
    static final long REG_WRITE = 1;
    static final long REG_ADD = 2;

    private final Externs.Register register;
    private final Expr index;
    private final Expr newValue;
    private final Expr increment;
    private final Expr opCode;
    private final Expr.LValue result;

    public RegisterRaw(Externs.Register register, Expr index, Expr newValue, Expr increment, Expr opCode, Expr.LValue result) {
        this.register = register;
        this.index = index;
        this.newValue = newValue;
        this.increment = increment;
        this.opCode = opCode;
        this.result = result;
    }

    @Override public int exec(State s) {
        int i = (int) index.eval(s);
        long op = opCode.eval(s);
        BigInteger value;
        synchronized (register) {
            value = register.get(i);
            if (op == REG_WRITE) {
                value = newValue.evalWide(s);
            } else if (op == REG_ADD) {
                value = value.add(increment.evalWide(s));
            }
            register.put(i, value);
            value = register.get(i);
        }
        result.setWide(s, value);
        return NEXT;
    }

    @Override public void c(CodeWriter w) {
        throw new CodeWriter.Unsupported("a P4-NetFPGA register");
    }
}
