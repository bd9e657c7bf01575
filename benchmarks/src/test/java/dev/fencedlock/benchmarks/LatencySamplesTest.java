package dev.fencedlock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LatencySamplesTest {

    @Test
    void nearestRankPercentilesOfOneToHundred() {
        LatencySamples samples = new LatencySamples();
        for (long i = 100; i >= 1; i--) {
            samples.add(i);
        }
        assertThat(samples.percentile(50)).isEqualTo(50);
        assertThat(samples.percentile(99)).isEqualTo(99);
        assertThat(samples.percentile(99.5)).isEqualTo(100);
        assertThat(samples.percentile(100)).isEqualTo(100);
        assertThat(samples.percentile(0.1)).isEqualTo(1);
    }

    @Test
    void singleSampleIsEveryPercentile() {
        LatencySamples samples = new LatencySamples();
        samples.add(7);
        assertThat(samples.percentile(1)).isEqualTo(7);
        assertThat(samples.percentile(100)).isEqualTo(7);
    }

    @Test
    void growsPastItsInitialCapacityAndClears() {
        LatencySamples samples = new LatencySamples();
        for (int i = 0; i < 5000; i++) {
            samples.add(i);
        }
        assertThat(samples.size()).isEqualTo(5000);
        assertThat(samples.percentile(100)).isEqualTo(4999);
        samples.clear();
        assertThat(samples.size()).isZero();
    }

    @Test
    void keepsEverySampleAddedConcurrently() throws InterruptedException {
        LatencySamples samples = new LatencySamples();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        CountDownLatch start = new CountDownLatch(1);
        for (int t = 0; t < 8; t++) {
            pool.execute(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                for (int i = 1; i <= 10_000; i++) {
                    samples.add(i);
                }
            });
        }
        start.countDown();
        pool.shutdown();
        assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        assertThat(samples.size()).isEqualTo(80_000);
        assertThat(samples.percentile(50)).isEqualTo(5_000);
    }

    @Test
    void rejectsBadInput() {
        LatencySamples samples = new LatencySamples();
        assertThatThrownBy(() -> samples.percentile(50))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no samples");
        samples.add(1);
        assertThatThrownBy(() -> samples.percentile(0)).hasMessageContaining("(0, 100]");
        assertThatThrownBy(() -> samples.percentile(100.5)).hasMessageContaining("100.5");
        assertThatThrownBy(() -> samples.add(-1)).hasMessageContaining("-1 ns");
    }
}
