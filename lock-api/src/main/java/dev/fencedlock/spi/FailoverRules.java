package dev.fencedlock.spi;

import dev.fencedlock.LockConfig.FallbackTakeover;
import dev.fencedlock.LockUnavailableException;
import java.time.Instant;

/**
 * The phase rules of a client with a fallback: where an acquisition goes at a given instant, and
 * how the phase moves when the primary fails, answers, or answers again. Pure: no threads, no
 * clock of its own; every instant is passed in, on the monotonic clock in nanoseconds (wall-clock
 * instants only for messages). {@link Failover} documents the phases and guards this object.
 *
 * <p>Not thread-safe: the caller serialises every call.
 */
final class FailoverRules {

    /** Where acquisitions of one moment go. */
    enum Phase {
        PRIMARY,
        DOWN,
        RETURNING
    }

    /**
     * The answer to "where does this acquisition go now": the primary, the fallback, or neither
     * before {@code untilNanos}.
     */
    record Route(Phase phase, boolean toPrimary, boolean toFallback, long untilNanos) {
        static final Route PRIMARY = new Route(Phase.PRIMARY, true, false, 0);
        static final Route FALLBACK = new Route(Phase.DOWN, false, true, 0);

        static Route waitUntil(Phase phase, long untilNanos) {
            return new Route(phase, false, false, untilNanos);
        }
    }

    /** How a return of the primary was taken. */
    enum Return {
        /** The client was not down: nothing changed. */
        IGNORED,
        /** Back on the primary at once: no client could have taken over yet. */
        NOBODY_TOOK_OVER,
        /** Back on the primary at once, as {@link FallbackTakeover#IMMEDIATE} asks. */
        IMMEDIATE,
        /** Returning: the primary grants from {@link #switchBackAtNanos()}. */
        WAITING_OUT
    }

    private final FallbackTakeover takeover;
    private final long probeIntervalNanos;

    private Phase phase = Phase.PRIMARY;
    private boolean switchBackTold = true;
    private LockUnavailableException failure;
    private long downAtNanos;
    private Instant downAt;
    private long primaryWaitNanos;
    private long takeoverAtNanos;
    private long backAtNanos;
    private Instant backAt;
    private long fallbackWaitNanos;
    private long switchBackAtNanos;
    private boolean primaryAnswered;
    private long lastAnswerNanos;

    /**
     * @param probeIntervalNanos how often the probe asks a primary that could not answer; a client
     *     may hear the primary's return up to one interval after another
     */
    FailoverRules(FallbackTakeover takeover, long probeIntervalNanos) {
        this.takeover = takeover;
        this.probeIntervalNanos = probeIntervalNanos;
    }

    FallbackTakeover takeover() {
        return takeover;
    }

    Phase phase() {
        return phase;
    }

    /**
     * Where an acquisition goes at {@code nowNanos}. Moves the client back to the primary once its
     * switch-back instant has passed.
     */
    Route route(long nowNanos) {
        if (phase == Phase.RETURNING && nowNanos - switchBackAtNanos >= 0) {
            enterPrimary();
        }
        return switch (phase) {
            case PRIMARY -> Route.PRIMARY;
            case DOWN ->
                nowNanos - takeoverAtNanos >= 0 ? Route.FALLBACK : Route.waitUntil(Phase.DOWN, takeoverAtNanos);
            case RETURNING -> Route.waitUntil(Phase.RETURNING, switchBackAtNanos);
        };
    }

    /**
     * Whether the return to the primary is still to be reported: true once after each return, then
     * false until the next one.
     */
    boolean takeSwitchBackNotice() {
        boolean tell = phase == Phase.PRIMARY && !switchBackTold;
        switchBackTold = true;
        return tell;
    }

    /**
     * Whether the client keeps the primary ({@code ofPrimary}) or the fallback from granting at
     * {@code nowNanos} although it may answer: the fallback before the takeover instant, both while
     * the client waits out the fallback's leases on its way back.
     */
    boolean withholds(boolean ofPrimary, long nowNanos) {
        return switch (phase) {
            case PRIMARY -> false;
            case DOWN -> !ofPrimary && nowNanos - takeoverAtNanos < 0;
            case RETURNING -> nowNanos - switchBackAtNanos < 0;
        };
    }

    /** Whether a lease the fallback just granted may be handed out: only while down, from the takeover on. */
    boolean fallbackMayGrant(long nowNanos) {
        return phase == Phase.DOWN && nowNanos - takeoverAtNanos >= 0;
    }

    /**
     * The primary answered an acquisition (granted, or found the lock taken) that started at {@code
     * startNanos}. A grant while the client is down (an acquisition that was already on its way)
     * pushes the takeover out to a full wait-out after it.
     */
    void primaryAnswered(long startNanos, boolean granted) {
        if (!primaryAnswered || startNanos - lastAnswerNanos > 0) {
            lastAnswerNanos = startNanos;
            primaryAnswered = true;
        }
        if (granted && phase == Phase.DOWN && takeover == FallbackTakeover.WAIT_OUT) {
            long after = startNanos + primaryWaitNanos;
            if (after - takeoverAtNanos > 0) {
                takeoverAtNanos = after;
            }
        }
    }

    /**
     * The primary could not answer: the client is down from {@code nowNanos}, and the fallback grants
     * from {@code primaryWaitNanos} later (zero for {@link FallbackTakeover#IMMEDIATE}).
     *
     * @return false, and nothing changes, unless the client was on the primary
     */
    boolean primaryFailed(long nowNanos, Instant wallNow, long primaryWaitNanos, LockUnavailableException cause) {
        if (phase != Phase.PRIMARY) {
            return false;
        }
        phase = Phase.DOWN;
        failure = cause;
        downAtNanos = nowNanos;
        downAt = wallNow;
        this.primaryWaitNanos = primaryWaitNanos;
        takeoverAtNanos = nowNanos + primaryWaitNanos;
        return true;
    }

    /**
     * The probe heard the primary at {@code nowNanos}, having asked it at {@code askedAtNanos}. With
     * {@link FallbackTakeover#WAIT_OUT} the client returns at once only if the primary answers at
     * least one probe interval before any client could have taken over (counted from the last
     * answer heard from it), else it waits out {@code fallbackWaitNanos} plus one probe interval.
     */
    Return primaryAnswersAgain(long nowNanos, Instant wallNow, long askedAtNanos, long fallbackWaitNanos) {
        if (phase != Phase.DOWN) {
            return Return.IGNORED;
        }
        boolean nobodyTookOver = takeover == FallbackTakeover.WAIT_OUT
                && primaryAnswered
                && nowNanos + probeIntervalNanos - (lastAnswerNanos + primaryWaitNanos) < 0;
        backAtNanos = nowNanos;
        backAt = wallNow;
        primaryAnswered(askedAtNanos, false);
        if (nobodyTookOver) {
            enterPrimary();
            return Return.NOBODY_TOOK_OVER;
        }
        if (takeover == FallbackTakeover.IMMEDIATE) {
            enterPrimary();
            return Return.IMMEDIATE;
        }
        phase = Phase.RETURNING;
        this.fallbackWaitNanos = fallbackWaitNanos + probeIntervalNanos;
        switchBackAtNanos = nowNanos + this.fallbackWaitNanos;
        return Return.WAITING_OUT;
    }

    private void enterPrimary() {
        phase = Phase.PRIMARY;
        switchBackTold = false;
        failure = null;
    }

    /** Why the primary failed; null while on the primary. */
    LockUnavailableException failure() {
        return failure;
    }

    Instant downAt() {
        return downAt;
    }

    long downAtNanos() {
        return downAtNanos;
    }

    /** The primary's wait-out counted at the failure. */
    long primaryWaitNanos() {
        return primaryWaitNanos;
    }

    long takeoverAtNanos() {
        return takeoverAtNanos;
    }

    Instant backAt() {
        return backAt;
    }

    long backAtNanos() {
        return backAtNanos;
    }

    /** The fallback's wait-out plus one probe interval, counted at the return. */
    long fallbackWaitNanos() {
        return fallbackWaitNanos;
    }

    long switchBackAtNanos() {
        return switchBackAtNanos;
    }
}
