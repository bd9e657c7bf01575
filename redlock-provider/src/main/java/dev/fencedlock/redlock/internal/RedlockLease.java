package dev.fencedlock.redlock.internal;

import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.NodeFailure;
import dev.fencedlock.spi.AbstractLease;
import dev.fencedlock.spi.LeaseRequest;
import dev.fencedlock.spi.LeaseRuntime;
import dev.fencedlock.spi.MonotonicClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A grant of a {@link RedlockLock}: its random value on the nodes and its token.
 *
 * <p><b>Extend</b>: {@code extend.lua} (compare-and-pexpire) on all nodes, decided by an {@link
 * ExtendRound}. Extensions go through each node's pipeline ({@link RedisNode#submit}): renewals
 * never wait on a node, many leases' extensions share one round trip per node, and a round is
 * decided as soon as a quorum answered, so a silent node delays no renewal.
 *
 * <p><b>Release</b>: {@code release.lua} (compare-and-delete, publishing on the lock's channel) on
 * all nodes, whether or not each granted: on the closing thread for {@link AbstractLease#close()},
 * through the pipelines for a lost lease.
 *
 * <p>Thread-safe, as {@link AbstractLease} orders the calls.
 */
final class RedlockLease extends AbstractLease {
    private final NodeCalls calls;
    private final byte[] value;

    RedlockLease(
            String lockName,
            long token,
            LeaseRequest request,
            long validUntilNanos,
            byte[] value,
            LeaseRuntime runtime,
            NodeCalls calls) {
        super(lockName, token, request.leaseTime(), request.autoRenew(), validUntilNanos, runtime);
        this.calls = calls;
        this.value = value;
    }

    /** The caller's own {@link #extend}: the renewal's round, awaited on the caller's thread. */
    @Override
    protected Optional<Duration> doExtend(Duration leaseTime) {
        try {
            return doExtendAsync(leaseTime).join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
    }

    /** One extension round; completes as soon as the outcome is known. */
    @Override
    protected CompletableFuture<Optional<Duration>> doExtendAsync(Duration leaseTime) {
        RedlockProvider provider = calls.provider();
        provider.quarantine().noteLease(leaseTime, "extension", lockName());
        long ttlMillis = Math.max(1, leaseTime.toMillis());
        byte[][] args = {value, Decimal.encode(ttlMillis)};
        ExtendRound round = new ExtendRound(this, ttlMillis * 1_000_000L, calls);
        List<RedisNode> nodes = provider.nodes();
        for (int i = 0; i < nodes.size(); i++) {
            int node = i;
            nodes.get(i).submit(Script.EXTEND, calls.lockKey(), args).thenAccept(reply -> round.answer(node, reply));
        }
        return round.outcome();
    }

    /** The release of a lost lease: queued on every node's pipeline, never awaited on the scheduler. */
    @Override
    protected CompletableFuture<Void> doReleaseAsync() {
        return calls.releaseQueued(value)
                .thenRun(() -> calls.provider().handoff().released(lockName()));
    }

    /**
     * @throws LockUnavailableException when no node answered, naming each node's cause
     */
    @Override
    protected void doRelease() {
        MonotonicClock clock = calls.clock();
        long start = clock.nanoTime();
        NodeReply[] replies = calls.releaseAll(value);
        calls.provider().handoff().released(lockName());
        int failed = 0;
        for (NodeReply reply : replies) {
            if (!reply.ok()) {
                failed++;
            }
        }
        if (failed == replies.length) {
            List<NodeFailure> failures = new ArrayList<>(failed);
            for (int i = 0; i < replies.length; i++) {
                failures.add(new NodeFailure(calls.provider().nodes().get(i).name(), replies[i].failure()));
            }
            throw new LockUnavailableException(
                    lockName(),
                    Duration.ofNanos(clock.nanoTime() - start),
                    replies.length,
                    Votes.quorum(replies.length),
                    failures);
        }
    }
}
