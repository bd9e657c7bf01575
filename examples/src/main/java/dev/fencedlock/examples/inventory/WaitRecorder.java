package dev.fencedlock.examples.inventory;

import java.util.Arrays;

/** Collects lock-wait samples in nanoseconds and reports percentiles. Thread-safe. */
final class WaitRecorder {
    private long[] samples = new long[1024];
    private int count;

    synchronized void record(long nanos) {
        if (count == samples.length) {
            samples = Arrays.copyOf(samples, count * 2);
        }
        samples[count++] = nanos;
    }

    synchronized void recordAll(long[] nanos) {
        for (long sample : nanos) {
            record(sample);
        }
    }

    synchronized long[] samples() {
        return Arrays.copyOf(samples, count);
    }

    /** The {@code p}-th percentile (0..100) in milliseconds, or 0 when there are no samples. */
    synchronized double percentileMillis(double p) {
        if (count == 0) {
            return 0;
        }
        long[] sorted = Arrays.copyOf(samples, count);
        Arrays.sort(sorted);
        int index = (int) Math.ceil(p / 100.0 * count) - 1;
        return sorted[Math.max(0, Math.min(count - 1, index))] / 1_000_000.0;
    }
}
