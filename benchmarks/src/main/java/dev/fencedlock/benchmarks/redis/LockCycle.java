package dev.fencedlock.benchmarks.redis;

import dev.fencedlock.FencedLock;
import dev.fencedlock.benchmarks.SlowAcquires;
import org.redisson.api.RLock;

/**
 * One full acquire and release of an uncontended lock, whichever library holds it, so that a
 * topology benchmark runs fencedlock and Redisson through the same harness. Each call uses the same
 * lock; one instance belongs to one benchmark thread.
 */
@FunctionalInterface
interface LockCycle {
    /** Acquires, releases, and returns a value for the blackhole (the token where there is one). */
    long run(SlowAcquires slow) throws InterruptedException;

    /** fencedlock: {@code acquire(wait)}, read {@code token()}, {@code close()}. */
    static LockCycle of(FencedLock lock) {
        return slow -> FencedRedlockBenchmark.acquireReadTokenRelease(lock, slow);
    }

    /** Redisson: {@code tryLock(wait)} (watchdog-renewed), {@code unlock()}. */
    static LockCycle of(RLock lock) {
        return slow -> RedissonBenchmark.lockAndUnlock(lock, slow) ? 1 : 0;
    }
}
