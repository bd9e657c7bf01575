package dev.fencedlock.redlock.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Node I/O as the algorithm sees it: run one of the {@link Script}s on one Redis master. Two paths:
 * for acquisitions and closes, on the caller's thread, the algorithm sends a call to every node
 * first and only then awaits the replies ({@link #send}), so the nodes work in parallel while the
 * caller waits at most about one node timeout in all; for lease housekeeping on the shared
 * scheduler, calls are queued and answered by futures ({@link #submit}).
 *
 * <p>Implementations must be thread-safe.
 */
interface RedisNode extends AutoCloseable {

    /** The node's address with any password masked, for messages and logs. */
    String name();

    /**
     * Starts a script call and returns without waiting for the reply. Never throws: a failure to
     * send is reported by {@link Pending#await()}.
     */
    Pending send(Script script, byte[][] keys, byte[][] args);

    /**
     * Queues a script call on the node's pipeline ({@link NodePipeline}) and returns at once, for
     * lease housekeeping that must never wait on a node (renewals, releases of lost leases). The
     * future never completes exceptionally (a failure is a failed reply) and completes within about
     * two node timeouts.
     */
    CompletableFuture<NodeReply> submit(Script script, byte[][] keys, byte[][] args);

    /**
     * Starts the status probe ({@link Script#PING}, which touches no key) on every master behind
     * this node and returns without waiting. One master by default; a Redis Cluster probes each
     * master of its slot map and names the slots no master serves ({@link ClusterRedisNode#probe}).
     */
    default Probe probe() {
        Pending pending = send(Script.PING, new byte[0][], new byte[0][]);
        return () -> List.of(new Probed(name(), "", pending.await()));
    }

    /** Closes the node's connections. Calls in flight fail. Idempotent. */
    @Override
    void close();

    /** A status probe in flight. Confined to the thread that started it. */
    interface Probe {
        /**
         * Waits for every master's reply, at most about one node timeout since the probe started,
         * and returns them in a stable order. Called once. Never throws.
         */
        List<Probed> await();
    }

    /**
     * What one master answered to the status probe.
     *
     * @param master the master's address with any password masked
     * @param role what the master serves, for example {@code slots 0-5460}; empty for a node that is
     *     its own master
     * @param reply the reply, failed when the master did not answer or refused the probe
     */
    record Probed(String master, String role, NodeReply reply) {}

    /** A call in flight. Confined to the thread that sent it. */
    interface Pending {
        /**
         * Waits for the reply, at most until the node timeout has passed since the call was sent,
         * and returns it. Called once. Never throws: a timeout is a failed reply.
         */
        NodeReply await();
    }
}
