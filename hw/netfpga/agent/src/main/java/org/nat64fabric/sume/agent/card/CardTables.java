package org.nat64fabric.sume.agent.card;

import java.math.BigInteger;
import java.util.List;
import org.nat64fabric.sume.agent.layout.TableLayout;

/**
 * The card's table operations, as SDNet's generated table API offers them (libcam, libtcam,
 * liblpm behind the P4-NetFPGA CLI): a table is named by its id, keys, masks and values are bit
 * vectors laid out as {@link TableLayout} says.
 * <ul>
 *   <li>CAM (exact): add, delete and read an entry by key ({@code cam_add_entry}, {@code cam_delete_entry},
 *       {@code cam_read_entry});</li>
 *   <li>TCAM (ternary): write and erase the entry at an address, the lowest address winning
 *       ({@code tcam_write_entry}, {@code tcam_erase_entry}, {@code tcam_verify_entry});</li>
 *   <li>LPM: a whole dataset at once ({@code lpm_load_dataset} into the lookup bank not in use,
 *       then {@code lpm_set_active_lookup_bank});</li>
 *   <li>the value a miss returns (the default action): not in P4-NetFPGA's API, where it is fixed
 *       when the card is built; see hw/netfpga/README.md, "The control agent";</li>
 *   <li>the cells of the program's registers (P4-NetFPGA's register externs, {@code <name>_reg_*}),
 *       one 32-bit register read each, as the CLI's {@code <name>_reg_read} does.</li>
 * </ul>
 */
public interface CardTables {
    /** A table as the card's table defines list it (SimpleSumeSwitch_table_defines.json). */
    final class TableInfo {
        public final int id;
        public final String name;
        public final TableLayout.Kind kind;
        public final int depth;

        public TableInfo(int id, String name, TableLayout.Kind kind, int depth) {
            this.id = id;
            this.name = name;
            this.kind = kind;
            this.depth = depth;
        }
    }

    /** One line of an LPM dataset: the prefix's bits (the whole key width), its length, the value. */
    final class LpmRow {
        public final BigInteger prefix;
        public final int length;
        public final BigInteger value;

        public LpmRow(BigInteger prefix, int length, BigInteger value) {
            this.prefix = prefix;
            this.length = length;
            this.value = value;
        }
    }

    List<TableInfo> tables();

    void camAdd(int table, BigInteger key, BigInteger value) throws CardException;

    void camDelete(int table, BigInteger key) throws CardException;

    /** The value under the key, or null. */
    BigInteger camRead(int table, BigInteger key) throws CardException;

    void tcamWrite(int table, int address, BigInteger key, BigInteger mask, BigInteger value) throws CardException;

    void tcamErase(int table, int address) throws CardException;

    /** {key, mask, value} at the address, or null when it is empty. */
    BigInteger[] tcamRead(int table, int address) throws CardException;

    /** Replaces the table's prefixes with these. */
    void lpmLoad(int table, List<LpmRow> rows) throws CardException;

    void setMissValue(int table, BigInteger value) throws CardException;

    BigInteger missValue(int table) throws CardException;

    /** The number of cells of the register, or 0 when the card has none of that name. */
    int registerSize(String register);

    /** The cell's value (at most 32 bits). */
    long registerRead(String register, int index) throws CardException;
}
