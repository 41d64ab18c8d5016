package org.nat64fabric.pipeconf;

import java.util.Collection;
import java.util.Optional;
import java.util.stream.Collectors;
import org.onosproject.net.pi.model.PiActionId;
import org.onosproject.net.pi.model.PiActionModel;
import org.onosproject.net.pi.model.PiActionProfileId;
import org.onosproject.net.pi.model.PiActionProfileModel;
import org.onosproject.net.pi.model.PiCounterId;
import org.onosproject.net.pi.model.PiCounterModel;
import org.onosproject.net.pi.model.PiMatchFieldId;
import org.onosproject.net.pi.model.PiMatchFieldModel;
import org.onosproject.net.pi.model.PiMeterId;
import org.onosproject.net.pi.model.PiMeterModel;
import org.onosproject.net.pi.model.PiPacketOperationModel;
import org.onosproject.net.pi.model.PiPacketOperationType;
import org.onosproject.net.pi.model.PiPipelineModel;
import org.onosproject.net.pi.model.PiRegisterId;
import org.onosproject.net.pi.model.PiRegisterModel;
import org.onosproject.net.pi.model.PiTableId;
import org.onosproject.net.pi.model.PiTableModel;
import org.onosproject.net.pi.model.PiTableType;

/**
 * The pipeline as ONOS 2.7 should see it: the P4Info's model with no table that ages entries.
 * ONOS 2.7 puts a temporary rule's timeout into the entry it translates for a table that
 * supports aging, but its P4Runtime codec neither writes nor reads {@code idle_timeout_ns}: every
 * such entry read back then differs from the one ONOS wrote, and ONOS deletes and rewrites it at
 * each flow poll. Told that no table ages, ONOS writes temporary rules as permanent entries and
 * its flow subsystem removes one whose direct counter stood still for the rule's timeout, which
 * the app takes as the idle report. The device still receives the P4Info as it is (the
 * pipeconf's P4_INFO_TEXT).
 */
final class AgingByCountersModel implements PiPipelineModel {
    private final PiPipelineModel model;

    AgingByCountersModel(PiPipelineModel model) {
        this.model = model;
    }

    @Override
    public Optional<String> architecture() {
        return model.architecture();
    }

    @Override
    public Optional<PiTableModel> table(PiTableId id) {
        return model.table(id).map(NotAging::new);
    }

    @Override
    public Collection<PiTableModel> tables() {
        return model.tables().stream().map(NotAging::new).collect(Collectors.toList());
    }

    @Override
    public Optional<PiCounterModel> counter(PiCounterId id) {
        return model.counter(id);
    }

    @Override
    public Collection<PiCounterModel> counters() {
        return model.counters();
    }

    @Override
    public Optional<PiMeterModel> meter(PiMeterId id) {
        return model.meter(id);
    }

    @Override
    public Collection<PiMeterModel> meters() {
        return model.meters();
    }

    @Override
    public Optional<PiRegisterModel> register(PiRegisterId id) {
        return model.register(id);
    }

    @Override
    public Collection<PiRegisterModel> registers() {
        return model.registers();
    }

    @Override
    public Optional<PiActionProfileModel> actionProfiles(PiActionProfileId id) {
        return model.actionProfiles(id);
    }

    @Override
    public Collection<PiActionProfileModel> actionProfiles() {
        return model.actionProfiles();
    }

    @Override
    public Optional<PiPacketOperationModel> packetOperationModel(PiPacketOperationType type) {
        return model.packetOperationModel(type);
    }

    /** A table as the P4Info has it, but for aging. */
    private static final class NotAging implements PiTableModel {
        private final PiTableModel table;

        NotAging(PiTableModel table) {
            this.table = table;
        }

        @Override
        public boolean supportsAging() {
            return false;
        }

        @Override
        public PiTableId id() {
            return table.id();
        }

        @Override
        public PiTableType tableType() {
            return table.tableType();
        }

        @Override
        public PiActionProfileModel actionProfile() {
            return table.actionProfile();
        }

        @Override
        public long maxSize() {
            return table.maxSize();
        }

        @Override
        public Collection<PiCounterModel> counters() {
            return table.counters();
        }

        @Override
        public Collection<PiMeterModel> meters() {
            return table.meters();
        }

        @Override
        public Collection<PiMatchFieldModel> matchFields() {
            return table.matchFields();
        }

        @Override
        public Collection<PiActionModel> actions() {
            return table.actions();
        }

        @Override
        public Optional<PiActionModel> constDefaultAction() {
            return table.constDefaultAction();
        }

        @Override
        public boolean isConstantTable() {
            return table.isConstantTable();
        }

        @Override
        public boolean oneShotOnly() {
            return table.oneShotOnly();
        }

        @Override
        public Optional<PiActionModel> action(PiActionId id) {
            return table.action(id);
        }

        @Override
        public Optional<PiMatchFieldModel> matchField(PiMatchFieldId id) {
            return table.matchField(id);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof NotAging && ((NotAging) o).table.equals(table);
        }

        @Override
        public int hashCode() {
            return table.hashCode();
        }
    }
}
