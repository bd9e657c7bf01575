package dev.fencedlock;

import java.util.List;
import java.util.Objects;

/**
 * What one backend of a {@link LockClient} says about itself, read without taking a lock. Immutable.
 *
 * @param backend the backend's name, for example {@code redlock}
 * @param state whether it can grant leases now
 * @param nodes one entry per node the backend talks to, in configuration order; empty when the
 *     backend has no nodes (the in-process {@code local} backend) or does not report them
 */
public record BackendStatus(String backend, State state, List<Node> nodes) {

    /** Whether a backend can grant leases. */
    public enum State {
        /** Every node that takes part answers. */
        UP,
        /** Enough nodes answer to grant leases, but some do not. */
        DEGRADED,
        /** The backend cannot grant leases now. */
        DOWN,
        /** The backend does not report its state (the default of {@link dev.fencedlock.spi.LockProvider}). */
        UNKNOWN;

        /** Whether a backend in this state is expected to grant leases; true also for {@link #UNKNOWN}. */
        public boolean canGrant() {
            return this != DOWN;
        }
    }

    /** What one node of a backend is doing, as far as the backend knows. */
    public enum NodeState {
        /**
         * A Redis master that answers and counts toward a quorum; a jdbc database that answers and
         * whose lock table is usable.
         */
        ANSWERING,
        /** A Redis master that answers but does not count yet: its restart quarantine has not passed. */
        QUARANTINED,
        /** A Redis master that never counts because it may evict keys under memory pressure. */
        EVICTING,
        /**
         * A Redis master that did not answer within the node timeout, or answered with an error; a
         * jdbc database that was not reached within the operation timeout, or whose lock table is
         * missing or not usable.
         */
        FAILING,
        /** ZooKeeper: the session is connected. */
        CONNECTED,
        /** ZooKeeper: the connection is suspended; the session may still be alive. */
        SUSPENDED,
        /** ZooKeeper: the session is lost or was never established. */
        LOST,
        /** ZooKeeper: connected to a server that is partitioned from the quorum; no writes. */
        READ_ONLY
    }

    /**
     * One node.
     *
     * @param address the node's address with any credentials masked
     * @param state what it is doing
     * @param detail why, for example the last error; empty when there is nothing to add
     */
    public record Node(String address, NodeState state, String detail) {
        public Node {
            Objects.requireNonNull(address, "address");
            Objects.requireNonNull(state, "state");
            Objects.requireNonNull(detail, "detail");
        }
    }

    public BackendStatus {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(state, "state");
        nodes = List.copyOf(nodes);
    }

    /** The status of a backend that does not report one: {@link State#UNKNOWN}, no nodes. */
    public static BackendStatus unknown(String backend) {
        return new BackendStatus(backend, State.UNKNOWN, List.of());
    }
}
