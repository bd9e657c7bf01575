package dev.fencedlock.benchmarks;

import java.util.Arrays;

/**
 * Nanosecond latencies collected from many threads, with exact percentiles. Samples are kept
 * whole rather than bucketed: a run records tens of thousands at most, and exact ranks avoid a
 * histogram's rounding in the tail that the p99 target is about.
 *
 * <p>Thread-safety: {@link #add} and {@link #percentile} may be called from any thread.
 */
public final class LatencySamples {
    private long[] samples = new long[1024];
    private int size;

    public synchronized void add(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("latency must not be negative, got " + nanos + " ns");
        }
        if (size == samples.length) {
            samples = Arrays.copyOf(samples, size * 2);
        }
        samples[size++] = nanos;
    }

    public synchronized int size() {
        return size;
    }

    public synchronized void clear() {
        size = 0;
    }

    /**
     * The nearest-rank percentile: the smallest sample that at least {@code p} percent of the
     * samples do not exceed.
     *
     * @param p in (0, 100]
     * @throws IllegalArgumentException if {@code p} is out of range
     * @throws IllegalStateException if there are no samples
     */
    public synchronized long percentile(double p) {
        if (!(p > 0 && p <= 100)) {
            throw new IllegalArgumentException("percentile must be in (0, 100], got " + p);
        }
        if (size == 0) {
            throw new IllegalStateException("no samples recorded");
        }
        long[] sorted = Arrays.copyOf(samples, size);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * size);
        return sorted[Math.max(rank, 1) - 1];
    }
}
