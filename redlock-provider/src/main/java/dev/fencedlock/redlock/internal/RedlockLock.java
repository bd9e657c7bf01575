package dev.fencedlock.redlock.internal;

import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.redlock.RedlockKeys;
import dev.fencedlock.spi.AbstractFencedLock;
import dev.fencedlock.spi.AbstractLease;
import dev.fencedlock.spi.LeaseRequest;
import dev.fencedlock.spi.LeaseRuntime;
import dev.fencedlock.spi.MonotonicClock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The Redlock algorithm for one lock name, with fencing tokens and the restart quarantine: the
 * acquisition is in this class, read top to bottom ({@link #doAcquire} retries {@link #attempt}s);
 * a grant is a {@link RedlockLease}, whose extension an {@link ExtendRound} decides. The calls to
 * every node are {@link NodeCalls}, node I/O is behind {@link RedisNode}, the Lua scripts are
 * resources beside it.
 *
 * <h2>Acquire</h2>
 *
 * <ol>
 *   <li>Draw a fresh value (16 bytes from a CSPRNG) and a token proposal {@code p = max(wall-clock
 *       ms << 16, highest token this client has seen + 1)} ({@link FencingTokens}).
 *   <li>Note the attempt's start on the monotonic clock, then send {@code acquire.lua} to all N nodes
 *       before reading any reply: {@code SET lock value NX PX ttl}, and where that succeeded, raise the
 *       lock's token counter to {@code p} if it is below {@code p} (or corrupt: not a token, or above
 *       {@link FencingTokens#ceiling()}). A node whose lock already holds this attempt's own value
 *       ran a resent call twice: that is a grant too. Each reply is awaited at most one
 *       node timeout after its send, so a hung node costs one node timeout, not one per node.
 *   <li>Count a reply only from a node whose current incarnation had been up for the restart
 *       quarantine when the attempt began ({@link NodeHealth}). Unless configured, the quarantine
 *       follows the leases that may still be outstanding: every acquire returns what the node's
 *       record of live leases ({@link RedlockKeys#leaseExpiries()}) held before the call's own
 *       grant, and the records of all this round's answers are taken in before any node is judged
 *       ({@link Quarantine}).
 *   <li>The lock is won on a quorum ({@code N/2+1}) of counting grants. The token is {@code p} if a
 *       quorum of counting nodes took it; otherwise {@code t = max(p, highest counter returned) + 1}
 *       is written back with {@code raise-token.lua} (raise only, never lower) to all nodes, and the
 *       grant stands only if a quorum of counting nodes took {@code t}. The common case, a proposal
 *       from a later millisecond than the last grant, costs no second round trip.
 *   <li>The grant is valid for {@code ttl - elapsed - (ttl * driftFactor + 2 ms)} after the last
 *       reply it needed, elapsed measured from the attempt's start; it is used only if that is
 *       positive.
 *   <li>Otherwise release on all nodes (silently: nothing was held that anyone waits for; awaited
 *       on the nodes that answered, queued without waiting for those that did not, so a silent node
 *       costs the attempt one node timeout, not two), and wait a
 *       random delay (uniform in [delay/2, 3·delay/2]) before the next attempt, until the wait is spent.
 *       A release of the lock cuts the delay short ({@link Handoff}): at once for a release in this
 *       client, after a short random delay (under 10 ms) for a release announced by another client.
 *       A split vote (some grants, no quorum, every node answering) also retries after a short random
 *       delay; until the client's subscription to the lock's release channel is confirmed, the delay
 *       is at most about 50 ms. Nodes that are unreachable or in their restart quarantine are no
 *       reason to stop early: attempts go on until the wait is spent. Then, if the last attempt
 *       lacked a quorum of counting answers, the caller gets a {@link LockUnavailableException}
 *       naming each node's cause and the time since the acquire began; else an empty result.
 * </ol>
 *
 * <p><b>Extend</b> and <b>release</b> ({@link RedlockLease}): compare-and-pexpire on all nodes,
 * counted only if a quorum of counting nodes extended within the remaining validity ({@link
 * ExtendRound}); compare-and-delete on all nodes, whether or not each granted.
 *
 * <p>A command that timed out at the client may still run when the node wakes up. That is safe: a
 * late {@code SET NX} holds that node for at most ttl (it counts for no grant), and a late counter
 * raise only burns token numbers.
 *
 * <h2>Why tokens only grow</h2>
 *
 * <p>Write <i>installed on n</i> for "node n's script found the counter below t and set it to t"
 * (strictly below: an equal counter refuses). A grant is handed out only after its token was
 * installed on a quorum of counting nodes. Any two quorums share a node.
 *
 * <ol>
 *   <li><b>Successive grants.</b> Let G (token t) be handed out before G' begins. Some node n
 *       installed both. If n kept its counter in between, it held at least t when G' installed t'
 *       there, so {@code t' > t}, whichever majorities G and G' used.
 *   <li><b>Two grants never share a token.</b> If G and G' both had t, a shared node installed t
 *       twice, so its counter went back below t in between: the node lost its data.
 *   <li><b>Lost data.</b> The shared node's counter went back below t because the node restarted
 *       without persistence (also all nodes at once) or the counter expired after its retention.
 *       Either way G' began more than the quarantine Q after the node installed t for G: a
 *       restarted node counts for G' only if it had been up for Q when G' began; an expired counter
 *       sat unused for its retention, {@code max(1 day, 2Q, 2·ttl)}, and G' installs nothing later
 *       than about two node timeouts after it begins. Now the high bits of every token are some
 *       client's clock reading taken no later than the token was made, so with clocks within ε of
 *       true time, t is below {@code (τ + ε + 1 ms) << 16} (τ: when t was installed), while every
 *       token of G' is at least G''s own reading at its start, above {@code (τ + Q - ε) << 16}. With
 *       {@code 2ε + 1 ms <= Q}, {@code t' > t}, which settles cases 1 and 2.
 * </ol>
 *
 * <p>The assumptions: (a) every client's wall clock is within ε of true time with {@code 2ε + 1 ms}
 * at most the restart quarantine (NTP-synchronised hosts and lease-length quarantines meet this by
 * orders of magnitude; with the quarantine off, {@code restart-quarantine=0s}, the time a node
 * stays down and restarting takes its place, which a real restart exceeds as far); (b) fewer than 65,536 proposals per lock name per millisecond, so the low 16
 * bits never carry into the clock part; (c) nothing deletes counters behind a running node's back
 * ({@code FLUSHALL} on a live node is data loss the client cannot see; tokens then rest on the clock
 * alone); (d) a node's {@code uptime_in_seconds} does not run ahead of its true uptime (Redis derives
 * it from the wall clock; a client that saw the previous incarnation does not depend on it). The
 * lock's own safety rests on the usual Redlock assumptions (bounded clock-rate drift, the
 * quarantine covering every lease a restarted node may have granted). A configured quarantine
 * enforces that for this client: a longer lease or extension is refused with an {@link
 * IllegalArgumentException}. The default, which follows the nodes' records of live leases, rests
 * on what this client last read of them ({@link Quarantine}).
 *
 * <p>Thread-safe; one instance may be shared by any number of threads.
 */
final class RedlockLock extends AbstractFencedLock {
    private static final long MIN_COUNTER_RETENTION_MILLIS = Duration.ofDays(1).toMillis();
    private static final long MAX_SHORT_DELAY_NANOS = 10_000_000L;
    private static final long POLL_NANOS = 50_000_000L;

    private final RedlockProvider provider;
    private final NodeCalls calls;

    RedlockLock(String name, LeaseRuntime runtime, RedlockProvider provider) {
        super(name, runtime);
        this.provider = provider;
        this.calls = new NodeCalls(name, provider, runtime.clock());
    }

    @Override
    protected Optional<? extends AbstractLease> doAcquire(LeaseRequest request) throws InterruptedException {
        MonotonicClock clock = runtime().clock();
        provider.quarantine()
                .noteLease(request.leaseTime(), request.autoRenew() ? "lease time" : "fixed lease", name());
        Handoff.Registration waiting = null;
        try {
            while (true) {
                long releasesBefore = provider.handoff().localReleases();
                Attempt attempt = attempt(request);
                if (attempt.lease != null) {
                    return Optional.of(attempt.lease);
                }
                request.recordAttempt(attempt.votes.describe());
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while acquiring lock '" + name() + "'");
                }
                long now = clock.nanoTime();
                long waitLeft = request.remainingWaitNanos(now);
                if (waitLeft <= 0) {
                    if (attempt.votes.unavailable()) {
                        // the whole wait, not the last attempt: quarantined or unreachable nodes may
                        // have kept every attempt of the wait from counting
                        throw attempt.votes.unavailableException(name(), Duration.ofNanos(now - request.startNanos()));
                    }
                    return Optional.empty();
                }
                if (waiting == null) {
                    waiting = provider.handoff().register(name());
                    if (provider.handoff().localReleases() != releasesBefore) {
                        continue; // a release here may have come before we registered: try at once
                    }
                }
                long pause = attempt.votes.split() ? shortDelayNanos() : retryDelayNanos();
                if (!provider.handoff().hearsReleasesOf(name())) {
                    pause = Math.min(pause, pollDelayNanos());
                }
                Handoff.Wake wake = waiting.await(Math.min(waitLeft, pause));
                if (wake == Handoff.Wake.REMOTE) {
                    // every waiting process heard the same message: spread their attempts
                    waiting.await(Math.min(waitLeft, shortDelayNanos()));
                }
            }
        } finally {
            if (waiting != null) {
                waiting.close();
            }
        }
    }

    /** The lease time in whole milliseconds (at least 1, as the nodes take it) less {@code ttl - drift}. */
    @Override
    protected Duration validityAllowance(Duration leaseTime) {
        long ttlNanos = Math.max(1, leaseTime.toMillis()) * 1_000_000L;
        return Duration.ofNanos(leaseTime.toNanos() - ttlNanos + Validity.driftNanos(ttlNanos, provider.driftFactor()));
    }

    /** One attempt: steps 1 to 6 of the class description. */
    private Attempt attempt(LeaseRequest request) {
        MonotonicClock clock = runtime().clock();
        long ttlMillis = Math.max(1, request.leaseTime().toMillis());
        long ttlNanos = ttlMillis * 1_000_000L;
        byte[] value = provider.newValue();
        long proposal = provider.tokens().propose();
        byte[] retention = Decimal.encode(counterRetentionMillis(ttlMillis));
        byte[] ceiling = Decimal.encode(provider.tokens().ceiling());

        long start = clock.nanoTime();
        NodeReply[] replies = calls.callAll(
                Script.ACQUIRE,
                calls.lockAndTokenKeys(),
                value,
                Decimal.encode(ttlMillis),
                Decimal.encode(proposal),
                retention,
                ceiling);
        long answered = clock.nanoTime();
        Votes votes = tallyAcquire(replies, start, answered);

        if (votes.hasQuorum()) {
            long token = proposal;
            boolean installed = votes.tokenAccepted();
            if (!installed) {
                token = FencingTokens.fallback(proposal, votes.highestCounter());
                installed = writeBack(token, retention, ceiling, start, votes);
            }
            long elapsed = clock.nanoTime() - start;
            long validity = Validity.remainingNanos(ttlNanos, elapsed, provider.driftFactor());
            if (installed && validity > 0) {
                provider.tokens().observe(token);
                noteGrants(replies, answered, ttlNanos);
                long validUntil = start + elapsed + validity;
                return new Attempt(
                        new RedlockLease(name(), token, request, validUntil, value, runtime(), calls), votes);
            }
            if (installed) {
                votes.problem("the grant took " + elapsed / 1_000_000 + " ms, leaving no validity of the " + ttlMillis
                        + " ms lease");
                request.recordGrantWithoutValidity("the grant took " + elapsed / 1_000_000 + " ms of the " + ttlMillis
                        + " ms lease, less the drift allowance");
            }
        }
        calls.releaseFailedAttempt(value, replies);
        return new Attempt(null, votes);
    }

    private Votes tallyAcquire(NodeReply[] replies, long attemptStart, long now) {
        Votes votes = new Votes(replies.length);
        // first what every answering node reports of its live leases: it sizes the quarantine by
        // which this very round's nodes are judged
        for (int i = 0; i < replies.length; i++) {
            calls.hearLiveLeases(i, replies[i], now);
        }
        for (int i = 0; i < replies.length; i++) {
            NodeReply reply = replies[i];
            if (!reply.ok()) {
                votes.failed(provider.nodes().get(i).name(), reply.failure());
                continue;
            }
            RuntimeException excluded = calls.exclusion(i, reply, attemptStart, now);
            if (excluded != null) {
                votes.excluded(provider.nodes().get(i).name(), excluded);
                continue;
            }
            try {
                List<?> result = reply.array();
                long outcome = (Long) result.get(0);
                if (outcome == 0) {
                    votes.taken();
                } else if (outcome == 1 || outcome == 2) {
                    long counter = Decimal.parse((byte[]) result.get(1));
                    provider.tokens().observe(counter);
                    votes.granted(outcome == 1, counter);
                } else {
                    // only what acquire.lua returns is a vote; anything else did not come from it
                    throw new IllegalStateException("outcome " + outcome + " is none of 0, 1, 2");
                }
            } catch (RuntimeException e) {
                votes.failed(
                        provider.nodes().get(i).name(),
                        new IllegalStateException("unexpected reply to the acquire script: " + reply.describe(), e));
            }
        }
        return votes;
    }

    /**
     * Tells the quarantine which nodes now hold this client's new lease, also those that did not
     * count (a node in quarantine ran the script too): they hold it until {@code answered + ttl}.
     */
    private void noteGrants(NodeReply[] replies, long answered, long ttlNanos) {
        for (int i = 0; i < replies.length; i++) {
            if (replies[i].ok() && grant(replies[i])) {
                provider.quarantine().wrote(i, answered, ttlNanos);
            }
        }
    }

    private static boolean grant(NodeReply reply) {
        try {
            return reply.array().get(0) instanceof Long outcome && (outcome == 1 || outcome == 2);
        } catch (RuntimeException e) {
            return false; // not an acquire reply: the tally reports it
        }
    }

    /** Step 4's second round: installs {@code token} on a quorum of counting nodes, or fails. */
    private boolean writeBack(long token, byte[] retention, byte[] ceiling, long attemptStart, Votes votes) {
        NodeReply[] replies =
                calls.callAll(Script.RAISE_TOKEN, calls.tokenKey(), Decimal.encode(token), retention, ceiling);
        long now = runtime().clock().nanoTime();
        int installed = 0;
        for (int i = 0; i < replies.length; i++) {
            NodeReply reply = replies[i];
            if (reply.ok()
                    && calls.exclusion(i, reply, attemptStart, now) == null
                    && NodeCalls.integerOrZero(reply) == 1) {
                installed++;
            }
        }
        if (installed < votes.quorum()) {
            votes.problem(
                    "token " + token + " was installed on " + installed + " nodes, " + votes.quorum() + " needed");
            return false;
        }
        return true;
    }

    private long counterRetentionMillis(long ttlMillis) {
        long quarantineMillis =
                provider.quarantine().outstandingNanos(runtime().clock().nanoTime()) / 1_000_000L;
        long longest = Math.max(quarantineMillis, ttlMillis);
        return Math.max(MIN_COUNTER_RETENTION_MILLIS, longest > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : 2 * longest);
    }

    /** The retry delay, uniform in [delay/2, 3·delay/2]. */
    private long retryDelayNanos() {
        return randomAround(provider.retryDelayNanos());
    }

    /**
     * While this client's subscription to the lock's release channel is not confirmed (just
     * registered, or the listener is reconnecting), a release elsewhere could go unheard: poll
     * about every {@value #POLL_NANOS} ns meanwhile, or the retry delay if that is shorter.
     */
    private long pollDelayNanos() {
        return randomAround(Math.min(POLL_NANOS, provider.retryDelayNanos()));
    }

    /**
     * A short random delay that separates contenders who started together (woken by the same
     * release, or after a split vote): uniform in [0, min(delay/10, 10 ms)).
     */
    private long shortDelayNanos() {
        long bound = Math.min(MAX_SHORT_DELAY_NANOS, provider.retryDelayNanos() / 10);
        return ThreadLocalRandom.current().nextLong(Math.max(1, bound));
    }

    private static long randomAround(long mean) {
        return mean / 2 + ThreadLocalRandom.current().nextLong(Math.max(1, mean));
    }

    /** The outcome of one attempt: a lease, or the votes that explain why not. */
    private record Attempt(RedlockLease lease, Votes votes) {}
}
