package org.nat64fabric.core.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import org.nat64fabric.core.ConfigException;

/**
 * JSON as users give it (the config file, REST bodies), read strictly: text that is not UTF-8
 * (RFC 8259 8.1; overlong forms too), duplicate keys, trailing content, nesting deeper than
 * {@link #MAX_DEPTH} and numbers longer than {@link #MAX_NUMBER} characters are refused, and
 * {@link #only} refuses fields a section does not know, so that a misspelt one never silently
 * leaves a default.
 */
public final class Json {
    /** Deeper than any document of ours; Jackson 2.11 (ONOS's) builds trees recursively, without a limit. */
    public static final int MAX_DEPTH = 32;
    /**
     * Longer than any number of ours; Jackson 2.11 has no limit, and turning a number of a million
     * digits into a value took it 15 s of CPU.
     */
    public static final int MAX_NUMBER = 100;
    private static final int MESSAGE_LIMIT = 160;
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private Json() {
    }

    /** Parses a whole document; errors name {@code field} (the file, or "body"). Empty input is null. */
    public static JsonNode parse(byte[] bytes, String field) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
        } catch (CharacterCodingException e) {
            throw new ConfigException(field, "is not UTF-8 text (RFC 8259 8.1)");
        }
        try {
            try (JsonParser p = MAPPER.getFactory().createParser(bytes)) {
                int depth = 0;
                for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                    if (t.isStructStart() && ++depth > MAX_DEPTH) {
                        throw new ConfigException(field, "nests deeper than " + MAX_DEPTH + " levels" + at(p.getTokenLocation()));
                    } else if (t.isStructEnd()) {
                        depth--;
                    } else if (t.isNumeric() && p.getTextLength() > MAX_NUMBER) {
                        throw new ConfigException(field, "has a number longer than " + MAX_NUMBER + " characters"
                                + at(p.getTokenLocation()));
                    }
                }
            }
            return bytes.length == 0 ? null : MAPPER.readTree(bytes);
        } catch (JsonProcessingException e) {
            String m = e.getOriginalMessage().replaceAll("\\s+", " ");   // one line, as every error is
            // Jackson quotes a bad token whole: an error must not echo a large body back.
            m = m.length() > MESSAGE_LIMIT ? m.substring(0, MESSAGE_LIMIT) + "…" : m;
            throw new ConfigException(field, "is not JSON: " + m + at(e.getLocation()));
        } catch (IOException e) {
            throw new ConfigException(field, "could not be read: " + e.getMessage());
        }
    }

    private static String at(JsonLocation l) {
        return l == null ? "" : " (line " + l.getLineNr() + ", column " + l.getColumnNr() + ")";
    }

    /**
     * Refuses any field of {@code node} not in {@code known}, naming it by its path under
     * {@code at} (empty: the document's top level), and the known field it resembles when there is one.
     */
    public static void only(JsonNode node, String at, String... known) {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!List.of(known).contains(name)) {
                String close = closest(name, known);
                String shown = name.matches("[A-Za-z0-9_-]{1,40}") ? name : ConfigException.quote(name);
                String section = at.isEmpty() ? "the top level" : at.substring(at.lastIndexOf('.') + 1);
                throw new ConfigException(at.isEmpty() ? shown : at + "." + shown, "unknown field"
                        + (close == null ? "" : ": did you mean '" + close + "'?")
                        + " (" + section + " has " + String.join(", ", known) + ")");
            }
        }
    }

    /** The known name at most two edits away (ignoring case), if any. */
    private static String closest(String name, String... known) {
        String best = null;
        int bestDistance = 3;
        for (String k : known) {
            int d = distance(name.toLowerCase(Locale.ROOT), k.toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                best = k;
                bestDistance = d;
            }
        }
        return best;
    }

    /** Levenshtein distance. */
    private static int distance(String a, String b) {
        if (Math.abs(a.length() - b.length()) > 2 || a.length() > 64 || b.length() > 64) {
            return 3;
        }
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(sub, Math.min(prev[j] + 1, cur[j - 1] + 1));
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
