package dev.fencedlock.spi;

/**
 * Source of monotonic time for durations and validity. Never the wall clock: a wall clock that
 * jumps would make a lease look valid for longer than it is. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface MonotonicClock {
    /** The JVM's monotonic clock. */
    MonotonicClock SYSTEM = System::nanoTime;

    /** Current value in nanoseconds from an arbitrary origin; compare only differences. */
    long nanoTime();
}
