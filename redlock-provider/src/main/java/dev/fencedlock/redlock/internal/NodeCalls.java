package dev.fencedlock.redlock.internal;

import dev.fencedlock.redlock.RedlockKeys;
import dev.fencedlock.spi.MonotonicClock;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The calls of one lock name to every node: its keys as the scripts take them, the fan-out that
 * sends to all nodes before awaiting any reply, the releases, and what each reply tells the
 * restart quarantine about the node's live leases. Shared by the acquisition ({@link RedlockLock}),
 * its leases ({@link RedlockLease}) and their extension rounds ({@link ExtendRound}). Thread-safe.
 */
final class NodeCalls {
    private static final byte[] NO_CHANNEL = new byte[0];

    private final RedlockProvider provider;
    private final MonotonicClock clock;
    private final byte[][] lockKey;
    private final byte[][] tokenKey;
    private final byte[][] lockAndTokenKeys;
    private final byte[][] releaseKeys;
    private final byte[] channel;

    NodeCalls(String name, RedlockProvider provider, MonotonicClock clock) {
        this.provider = provider;
        this.clock = clock;
        RedlockKeys keys = provider.keys();
        byte[][] records = provider.recordKeys();
        this.lockKey = new byte[][] {bytes(keys.lock(name))};
        this.tokenKey = new byte[][] {bytes(keys.token(name))};
        this.lockAndTokenKeys = new byte[][] {lockKey[0], tokenKey[0], records[0], records[1]};
        this.releaseKeys = new byte[][] {lockKey[0], records[0], records[1]};
        this.channel = bytes(keys.released(name));
    }

    RedlockProvider provider() {
        return provider;
    }

    MonotonicClock clock() {
        return clock;
    }

    /** The lock key alone, as {@code extend.lua} takes it. */
    byte[][] lockKey() {
        return lockKey;
    }

    /** The token counter alone, as {@code raise-token.lua} takes it. */
    byte[][] tokenKey() {
        return tokenKey;
    }

    /** Lock, token counter and the records of live leases, as {@code acquire.lua} takes them. */
    byte[][] lockAndTokenKeys() {
        return lockAndTokenKeys;
    }

    /** Sends to every node first, then collects every reply: the nodes work in parallel. */
    NodeReply[] callAll(Script script, byte[][] keys, byte[]... args) {
        List<RedisNode> nodes = provider.nodes();
        RedisNode.Pending[] pending = new RedisNode.Pending[nodes.size()];
        for (int i = 0; i < pending.length; i++) {
            pending[i] = nodes.get(i).send(script, keys, args);
        }
        NodeReply[] replies = new NodeReply[pending.length];
        for (int i = 0; i < pending.length; i++) {
            replies[i] = pending[i].await();
        }
        return replies;
    }

    /** Compare-and-delete on every node, announced to waiters, awaited on the caller's thread. */
    NodeReply[] releaseAll(byte[] value) {
        NodeReply[] replies = callAll(Script.RELEASE, releaseKeys, value, channel);
        long now = clock.nanoTime();
        for (int i = 0; i < replies.length; i++) {
            hearLiveLeases(i, replies[i], now);
        }
        return replies;
    }

    /**
     * Compare-and-delete on every node's pipeline ({@link RedisNode#submit}), announced to waiters;
     * completes when every node answered or failed, within about two node timeouts.
     */
    CompletableFuture<Void> releaseQueued(byte[] value) {
        byte[][] args = {value, channel};
        List<RedisNode> nodes = provider.nodes();
        CompletableFuture<?>[] replies = new CompletableFuture<?>[nodes.size()];
        for (int i = 0; i < replies.length; i++) {
            replies[i] = submitRelease(i, args);
        }
        return CompletableFuture.allOf(replies);
    }

    /**
     * Releases what a failed attempt may have taken, silently (nothing anyone waits for was held):
     * awaited on the nodes that answered the attempt, so that they are free when the call returns;
     * queued on the pipelines of those that did not (a late {@code SET} may still land there), so
     * that a silent node costs the attempt one node timeout, not two.
     */
    void releaseFailedAttempt(byte[] value, NodeReply[] attempt) {
        List<RedisNode> nodes = provider.nodes();
        byte[][] args = {value, NO_CHANNEL};
        RedisNode.Pending[] pending = new RedisNode.Pending[nodes.size()];
        for (int i = 0; i < pending.length; i++) {
            if (attempt[i].ok()) {
                pending[i] = nodes.get(i).send(Script.RELEASE, releaseKeys, args);
            } else {
                submitRelease(i, args);
            }
        }
        for (int i = 0; i < pending.length; i++) {
            if (pending[i] != null) {
                NodeReply reply = pending[i].await();
                hearLiveLeases(i, reply, clock.nanoTime());
            }
        }
    }

    private CompletableFuture<Void> submitRelease(int node, byte[][] args) {
        return provider.nodes()
                .get(node)
                .submit(Script.RELEASE, releaseKeys, args)
                .thenAccept(reply -> hearLiveLeases(node, reply, clock.nanoTime()));
    }

    /**
     * Why {@code node}'s answer does not count for a round that began at {@code attemptStart}
     * (restart quarantine, eviction), or null when it counts.
     */
    RuntimeException exclusion(int node, NodeReply reply, long attemptStart, long now) {
        return provider.health().get(node).exclusion(reply.instance(), attemptStart, now, provider.quarantine());
    }

    /**
     * Takes in what an acquire reply ({@code {outcome, x, remaining, longest, now}}) or a release
     * reply ({@code {released, remaining, longest, now}}) reports of the node's live leases.
     */
    void hearLiveLeases(int node, NodeReply reply, long now) {
        if (!reply.ok()) {
            return;
        }
        try {
            List<?> result = reply.array();
            int at = result.size() == 5 ? 2 : 1; // acquire: {outcome, x, remaining, longest, now}
            if (result.size() >= 4
                    && result.get(at) instanceof Long remaining
                    && result.get(at + 1) instanceof Long longest
                    && result.get(at + 2) instanceof Long nodeMicros) {
                provider.quarantine().hear(node, reply.instance().runId(), nodeMicros, now, remaining, longest);
            }
        } catch (RuntimeException e) {
            // not a reply of these scripts: the tally reports it
        }
    }

    /** The integer a script returned, or 0 for any other reply. */
    static long integerOrZero(NodeReply reply) {
        try {
            return reply.integer();
        } catch (IllegalStateException e) {
            return 0;
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
