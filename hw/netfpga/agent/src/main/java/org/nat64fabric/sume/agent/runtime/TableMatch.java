package org.nat64fabric.sume.agent.runtime;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.nat64fabric.sume.agent.layout.BitVector;
import p4.config.v1.P4InfoOuterClass;
import p4.v1.P4RuntimeOuterClass.FieldMatch;

/**
 * A P4Runtime match checked against the P4Info (P4Runtime §9.1.1) and turned into the card's key
 * and mask: one value and one mask per key field, in key order; a don't-care field is 0 / 0.
 */
final class TableMatch {
    final BigInteger[] values;
    final BigInteger[] masks;
    /** Per field, its prefix length (lpm) or -1; the LPM dataset takes it. */
    final int[] prefixLengths;
    /** What identifies the entry in its table (with its priority). */
    final String identity;

    private TableMatch(BigInteger[] values, BigInteger[] masks, int[] prefixLengths, String identity) {
        this.values = values;
        this.masks = masks;
        this.prefixLengths = prefixLengths;
        this.identity = identity;
    }

    static TableMatch of(P4InfoOuterClass.Table table, List<FieldMatch> match, int priority) throws EntityError {
        String tname = table.getPreamble().getName();
        Map<Integer, FieldMatch> byId = new HashMap<>();
        for (FieldMatch m : match) {
            if (byId.put(m.getFieldId(), m) != null) {
                throw invalid(tname + ": match field " + m.getFieldId() + " is given twice");
            }
        }
        int n = table.getMatchFieldsCount();
        BigInteger[] values = new BigInteger[n];
        BigInteger[] masks = new BigInteger[n];
        int[] prefixes = new int[n];
        StringBuilder identity = new StringBuilder().append(priority);
        for (int i = 0; i < n; i++) {
            P4InfoOuterClass.MatchField f = table.getMatchFields(i);
            FieldMatch m = byId.remove(f.getId());
            String where = tname + " field " + f.getName();
            int w = f.getBitwidth();
            prefixes[i] = -1;
            values[i] = BigInteger.ZERO;
            masks[i] = BigInteger.ZERO;
            switch (f.getMatchType()) {
                case EXACT:
                    if (m == null || !m.hasExact()) {
                        throw invalid(where + ": an exact field needs an exact value");
                    }
                    values[i] = value(m.getExact().getValue(), w, where);
                    masks[i] = BitVector.ones(w);
                    break;
                case TERNARY:
                    if (m == null) {
                        break;
                    }
                    if (!m.hasTernary()) {
                        throw invalid(where + ": a ternary field takes a ternary match");
                    }
                    values[i] = value(m.getTernary().getValue(), w, where);
                    masks[i] = value(m.getTernary().getMask(), w, where + " mask");
                    if (masks[i].signum() == 0) {
                        throw invalid(where + ": a mask of 0 is a don't-care field: omit it");
                    }
                    if (!values[i].andNot(masks[i]).equals(BigInteger.ZERO)) {
                        throw invalid(where + ": the value has bits the mask does not (P4Runtime §8.3)");
                    }
                    break;
                case LPM:
                    if (m == null) {
                        prefixes[i] = 0;
                        break;
                    }
                    if (!m.hasLpm()) {
                        throw invalid(where + ": an lpm field takes an lpm match");
                    }
                    int len = m.getLpm().getPrefixLen();
                    if (len < 1 || len > w) {
                        throw invalid(where + ": prefix length " + len + " is not in 1.." + w
                                + (len == 0 ? " (omit the field for a /0)" : ""));
                    }
                    values[i] = value(m.getLpm().getValue(), w, where);
                    masks[i] = BitVector.ones(len).shiftLeft(w - len);
                    if (!values[i].andNot(masks[i]).equals(BigInteger.ZERO)) {
                        throw invalid(where + ": the value has bits past its /" + len + " (P4Runtime §8.3)");
                    }
                    prefixes[i] = len;
                    break;
                default:
                    throw new EntityError(Status.Code.UNIMPLEMENTED, where + ": SDNet has no "
                            + f.getMatchType() + " match (exact, ternary and lpm only)");
            }
            identity.append('|').append(values[i].toString(16)).append('/').append(masks[i].toString(16));
        }
        if (!byId.isEmpty()) {
            throw invalid(tname + " has no match field with ID " + byId.keySet().iterator().next());
        }
        return new TableMatch(values, masks, prefixes, identity.toString());
    }

    static BigInteger value(ByteString bytes, int width, String where) throws EntityError {
        if (bytes.isEmpty()) {
            throw invalid(where + ": empty value");
        }
        BigInteger v = new BigInteger(1, bytes.toByteArray());
        if (v.bitLength() > width) {
            throw new EntityError(Status.Code.OUT_OF_RANGE, where + ": value 0x" + v.toString(16)
                    + " does not fit in " + width + " bits");
        }
        return v;
    }

    static EntityError invalid(String message) {
        return new EntityError(Status.Code.INVALID_ARGUMENT, message);
    }
}
