package dev.fencedlock.benchmarks;

import java.time.Duration;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * Counts acquisitions of an uncontended lock that took longer than a second, reported by JMH as
 * the secondary metric {@code slowAcquires} (events per iteration, summed over threads; JMH resets
 * the counter before each iteration). An uncontended acquire is slow when the thread's own previous
 * release failed (a node timed out) and the stale grant has to expire first; the throughput
 * benchmarks wait {@link Backends#UNCONTENDED_WAIT} for that instead of failing, and this counter
 * says how often it happened.
 *
 * <p>Used by one benchmark thread only, as JMH gives each thread its own instance.
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.EVENTS)
public class SlowAcquires {
    // Longer than any healthy acquire on this machine, far shorter than a lease time.
    private static final long THRESHOLD_NANOS = Duration.ofSeconds(1).toNanos();

    public long slowAcquires;

    /** Records one acquisition that started at {@code startNanos} ({@link System#nanoTime()}). */
    public void record(long startNanos) {
        if (System.nanoTime() - startNanos > THRESHOLD_NANOS) {
            slowAcquires++;
        }
    }
}
