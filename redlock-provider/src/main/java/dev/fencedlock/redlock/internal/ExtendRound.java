package dev.fencedlock.redlock.internal;

import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.NodeFailure;
import dev.fencedlock.spi.AbstractLease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One extension round of a {@link RedlockLease}: counts the nodes' answers to {@code extend.lua}
 * as they arrive and completes {@link #outcome()} as soon as it is decided, without waiting for
 * the slowest node.
 *
 * <ul>
 *   <li>a quorum of counting nodes extended, and the last of those answers came while the lease
 *       was still valid and before the new validity {@code ttl - drift} was spent: extended, for
 *       {@code ttl - drift} from the round's start;
 *   <li>more counting nodes said "not held" than a quorum can spare: lost (empty);
 *   <li>every node answered and neither: {@link LockUnavailableException}, with each node's cause
 *       (the lease base class retries while validity remains).
 * </ul>
 *
 * A node in restart quarantine (or one that may evict) cannot say "not held": having restarted,
 * it may have forgotten this grant. Thread-safe: answers come from the nodes' pipeline threads.
 */
final class ExtendRound {
    private final CompletableFuture<Optional<Duration>> outcome = new CompletableFuture<>();
    private final AbstractLease lease;
    private final NodeCalls calls;
    private final long start;
    private final long validUntil;
    private final long validity;
    private final long ttlNanos;
    private final int nodes;
    private final int quorum;
    private final List<NodeFailure> failures = new ArrayList<>();
    private int answered;
    private int extended;
    private int notHeld;
    private int quarantined;

    ExtendRound(AbstractLease lease, long ttlNanos, NodeCalls calls) {
        this.lease = lease;
        this.calls = calls;
        this.start = calls.clock().nanoTime();
        this.validUntil = start + lease.remaining().toNanos();
        this.validity =
                ttlNanos - Validity.driftNanos(ttlNanos, calls.provider().driftFactor());
        this.ttlNanos = ttlNanos;
        this.nodes = calls.provider().nodes().size();
        this.quorum = Votes.quorum(nodes);
    }

    /** The new validity, empty when the lease is lost; completes once, as soon as it is decided. */
    CompletableFuture<Optional<Duration>> outcome() {
        return outcome;
    }

    synchronized void answer(int node, NodeReply reply) {
        if (outcome.isDone()) {
            return;
        }
        answered++;
        long now = calls.clock().nanoTime();
        RedlockProvider provider = calls.provider();
        String name = provider.nodes().get(node).name();
        RuntimeException excluded = reply.ok() ? calls.exclusion(node, reply, start, now) : null;
        if (!reply.ok()) {
            failures.add(new NodeFailure(name, reply.failure()));
        } else if (excluded != null) {
            failures.add(new NodeFailure(name, excluded));
            quarantined++;
        } else if (NodeCalls.integerOrZero(reply) == 1) {
            extended++;
            provider.quarantine().wrote(node, now, ttlNanos);
        } else {
            notHeld++;
        }
        if (extended >= quorum) {
            boolean inTime = now - validUntil < 0 && validity > now - start;
            outcome.complete(inTime ? Optional.of(Duration.ofNanos(validity)) : Optional.empty());
        } else if (notHeld > nodes - quorum) {
            outcome.complete(Optional.empty());
        } else if (answered == nodes) {
            outcome.completeExceptionally(new LockUnavailableException(
                    lease.lockName(),
                    Duration.ofNanos(now - start),
                    nodes,
                    nodes - failures.size() + quarantined,
                    quorum,
                    List.copyOf(failures)));
        }
    }
}
