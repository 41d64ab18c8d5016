package org.nat64fabric.sume.agent.runtime;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nat64fabric.sume.agent.card.CardTables;
import org.nat64fabric.sume.agent.layout.TableLayout;
import p4.config.v1.P4InfoOuterClass;
import p4.v1.P4RuntimeOuterClass.Action;
import p4.v1.P4RuntimeOuterClass.TableAction;
import p4.v1.P4RuntimeOuterClass.TableEntry;

/** One table as the agent drives it: its P4Info, its words' layout, its id on the card, and what was written to it. */
final class TableState {
    final P4InfoOuterClass.Table info;
    final TableLayout layout;
    final int cardId;
    final Map<String, TableEntry> entries = new LinkedHashMap<>();
    /** TCAM only: the identities in address order. */
    final List<String> addresses = new ArrayList<>();
    /** LPM only: each entry's line of the dataset. */
    final Map<String, CardTables.LpmRow> lpmRows = new LinkedHashMap<>();
    TableEntry defaultEntry;
    /** Tables whose entries age (NOTIFY_CONTROL): the register their slots index, else null. */
    final String slotRegister;
    private final Map<Integer, P4InfoOuterClass.Action> actions;
    private final Map<Integer, Integer> actionIndex = new HashMap<>();

    TableState(P4InfoOuterClass.Table info, TableLayout layout, int cardId, Map<Integer, P4InfoOuterClass.Action> actions) {
        this.info = info;
        this.layout = layout;
        this.cardId = cardId;
        this.actions = actions;
        String register = null;
        for (int i = 0; i < info.getActionRefsCount(); i++) {
            actionIndex.put(info.getActionRefs(i).getId(), i);
            SlotParam slot = SlotParam.of(actions.get(info.getActionRefs(i).getId()));
            register = slot != null ? slot.register : register;
        }
        boolean aged = info.getIdleTimeoutBehavior() == P4InfoOuterClass.Table.IdleTimeoutBehavior.NOTIFY_CONTROL;
        if (aged != (register != null)) {
            throw new IllegalArgumentException("table " + name() + (aged ? " has idle timeouts but no action with an entry's slot"
                    : " has actions with an entry's slot but no idle timeouts") + " (the card's program ages entries through slots)");
        }
        this.slotRegister = register;
    }

    String name() {
        return info.getPreamble().getName();
    }

    /** The card's value word for the entry's action, after checking it against the P4Info; {@code slot} fills a slot parameter. */
    BigInteger value(TableEntry e, boolean asDefault, int slot) throws EntityError {
        if (!e.hasAction()) {
            throw TableMatch.invalid(name() + ": the entry has no action");
        }
        if (e.getAction().getTypeCase() != TableAction.TypeCase.ACTION) {
            throw new EntityError(Status.Code.UNIMPLEMENTED, name() + ": the card has no action profiles ("
                    + e.getAction().getTypeCase() + ")");
        }
        Action a = e.getAction().getAction();
        Integer index = actionIndex.get(a.getActionId());
        if (index == null) {
            throw TableMatch.invalid(name() + " has no action with ID " + a.getActionId());
        }
        P4InfoOuterClass.ActionRef ref = info.getActionRefs(index);
        P4InfoOuterClass.Action action = actions.get(a.getActionId());
        String aname = action.getPreamble().getName();
        if (!asDefault && ref.getScope() == P4InfoOuterClass.ActionRef.Scope.DEFAULT_ONLY) {
            throw TableMatch.invalid(name() + ": " + aname + " is a default-only action");
        }
        if (asDefault && ref.getScope() == P4InfoOuterClass.ActionRef.Scope.TABLE_ONLY) {
            throw TableMatch.invalid(name() + ": " + aname + " may not be the default action");
        }
        SlotParam slotParam = SlotParam.of(action);
        BigInteger[] params = new BigInteger[action.getParamsCount() + (slotParam == null ? 0 : 1)];
        if (slotParam != null) {
            params[params.length - 1] = BigInteger.valueOf(slot);
        }
        Map<Integer, Integer> position = new HashMap<>();
        for (int i = 0; i < action.getParamsCount(); i++) {
            position.put(action.getParams(i).getId(), i);
        }
        for (Action.Param p : a.getParamsList()) {
            Integer i = position.get(p.getParamId());
            if (i == null) {
                throw TableMatch.invalid(aname + " has no parameter with ID " + p.getParamId());
            }
            if (params[i] != null) {
                throw TableMatch.invalid(aname + ": parameter " + action.getParams(i).getName() + " is given twice");
            }
            params[i] = TableMatch.value(p.getValue(), action.getParams(i).getBitwidth(),
                    aname + " parameter " + action.getParams(i).getName());
        }
        for (int i = 0; i < action.getParamsCount(); i++) {
            if (params[i] == null) {
                throw TableMatch.invalid(aname + ": parameter " + action.getParams(i).getName() + " is missing");
            }
        }
        return layout.value(index, params);
    }

    /** The default entry a miss value (decoded) stands for. */
    TableEntry defaultEntry(TableLayout.Action a) {
        P4InfoOuterClass.Action action = actions.get(info.getActionRefs(a.index).getId());
        Action.Builder b = Action.newBuilder().setActionId(action.getPreamble().getId());
        for (int i = 0; i < action.getParamsCount(); i++) {   // not a slot parameter: the agent's, not the controller's
            b.addParams(Action.Param.newBuilder().setParamId(action.getParams(i).getId()).setValue(bytes(a.params[i])));
        }
        return TableEntry.newBuilder().setTableId(info.getPreamble().getId()).setIsDefaultAction(true)
                .setAction(TableAction.newBuilder().setAction(b)).build();
    }

    private static ByteString bytes(BigInteger v) {
        byte[] b = v.toByteArray();
        int skip = 0;
        while (skip < b.length - 1 && b[skip] == 0) {
            skip++;
        }
        return ByteString.copyFrom(b, skip, b.length - skip);
    }
}
