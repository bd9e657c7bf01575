package dev.fencedlock.redlock.internal;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How long a restarted node stays out of the quorum: {@code fencedlock.redlock.restart-quarantine}
 * when configured, else the longest lease time this client has asked for (the configured lease
 * time, or a longer fixed lease or extension). A client cannot know the leases of other clients,
 * so deployments that mix lease times should configure the quarantine. Thread-safe.
 */
final class Quarantine {
    private final long configuredNanos;
    private final AtomicLong longestLeaseNanos;

    /**
     * @param configured the configured quarantine, or null to follow the longest lease
     * @param leaseTime the client's default lease time
     */
    Quarantine(Duration configured, Duration leaseTime) {
        this.configuredNanos = configured == null ? -1 : saturatedNanos(configured);
        this.longestLeaseNanos = new AtomicLong(saturatedNanos(leaseTime));
    }

    /** Records a lease time about to be used, before any node is asked for it. */
    void noteLease(Duration leaseTime) {
        long nanos = saturatedNanos(leaseTime);
        if (nanos > longestLeaseNanos.get()) {
            longestLeaseNanos.accumulateAndGet(nanos, Math::max);
        }
    }

    long nanos() {
        return configuredNanos >= 0 ? configuredNanos : longestLeaseNanos.get();
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 4;
        }
    }
}
