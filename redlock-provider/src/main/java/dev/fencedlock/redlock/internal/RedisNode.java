package dev.fencedlock.redlock.internal;

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

    /** Closes the node's connections. Calls in flight fail. Idempotent. */
    @Override
    void close();

    /** A call in flight. Confined to the thread that sent it. */
    interface Pending {
        /**
         * Waits for the reply, at most until the node timeout has passed since the call was sent,
         * and returns it. Called once. Never throws: a timeout is a failed reply.
         */
        NodeReply await();
    }
}
