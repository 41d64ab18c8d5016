package org.nat64fabric.controller;

import java.nio.file.Path;
import org.h2.mvstore.MVStore;
import org.nat64fabric.core.store.MapNatStore;

/**
 * The NAT state on disk, in an H2 MVStore file: BIB, sessions, EAMT, port blocks and resting
 * ports. Every change is committed before the call that made it returns, so a controller killed
 * at any moment restarts with every mapping it handed out.
 */
final class DurableNatStore extends MapNatStore implements AutoCloseable {
    private final MVStore mv;

    private DurableNatStore(MVStore mv) {
        super(mv::openMap);
        this.mv = mv;
    }

    static DurableNatStore open(Path file) {
        return new DurableNatStore(new MVStore.Builder().fileName(file.toString()).autoCommitDisabled().open());
    }

    @Override
    protected void changed() {
        mv.commit();
    }

    @Override
    public void close() {
        mv.close();
    }
}
