package org.nat64fabric.core.config;

import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.pool4.Pool4Config;
import org.nat64fabric.core.pool6.Pool6;
import org.nat64fabric.core.session.Timeouts;

/**
 * The translator's settings, shared by every switch: pool6, pool4, timers, filtering, the
 * per-subscriber session limit (RFC 6888 REQ-4) and whether logs carry destinations (REQ-12).
 */
public final class Nat64Config {
    public final Pool6 pool6;
    public final Pool4Config pool4;
    public final Timeouts timeouts;
    /** RFC 4787 address-dependent filtering: inbound only from remotes the mapping has sent to. */
    public final boolean addressDependentFiltering;
    public final int maxSessionsPerSubscriber;
    public final boolean logDestination;

    private Nat64Config(Builder b) {
        this.pool6 = b.pool6;
        this.pool4 = b.pool4;
        this.timeouts = b.timeouts;
        this.addressDependentFiltering = b.addressDependentFiltering;
        this.maxSessionsPerSubscriber = b.maxSessionsPerSubscriber;
        this.logDestination = b.logDestination;
    }

    public static Builder builder() {
        return new Builder();
    }

    public static final class Builder {
        private Pool6 pool6;
        private Pool4Config pool4;
        private Timeouts timeouts = Timeouts.DEFAULTS;
        private boolean addressDependentFiltering;
        private int maxSessionsPerSubscriber = 4096;
        private boolean logDestination = true;

        public Builder pool6(Pool6 pool6) {
            this.pool6 = pool6;
            return this;
        }

        public Builder pool4(Pool4Config pool4) {
            this.pool4 = pool4;
            return this;
        }

        public Builder timeouts(Timeouts timeouts) {
            this.timeouts = timeouts;
            return this;
        }

        public Builder addressDependentFiltering(boolean on) {
            this.addressDependentFiltering = on;
            return this;
        }

        public Builder maxSessionsPerSubscriber(int max) {
            this.maxSessionsPerSubscriber = max;
            return this;
        }

        public Builder logDestination(boolean on) {
            this.logDestination = on;
            return this;
        }

        public Nat64Config build() {
            if (pool6 == null) {
                throw new ConfigException("pool6", "is required (for example 64:ff9b::/96)");
            }
            if (pool4 == null) {
                throw new ConfigException("pool4", "is required (at least one IPv4 prefix in pool4.addresses)");
            }
            if (maxSessionsPerSubscriber < 1) {
                throw new ConfigException("limits.maxSessionsPerSubscriber", "must be at least 1");
            }
            return new Nat64Config(this);
        }
    }
}
