package dev.fencedlock.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.Lease;
import dev.fencedlock.LockConfig;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The validity allowance's arithmetic, against a backend that takes Redlock's 1% + 2 ms. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AbstractFencedLockTest {
    private final LeaseRuntime runtime =
            new LeaseRuntime(LockConfig.builder().backend("local").build(), MonotonicClock.SYSTEM);

    @AfterEach
    void close() {
        runtime.close();
    }

    /** Grants at once, valid for the lease time in whole milliseconds less 1% and 2 ms. */
    private final class DriftingLock extends AbstractFencedLock {
        DriftingLock() {
            super("drifting", runtime);
        }

        @Override
        protected Duration validityAllowance(Duration leaseTime) {
            long ttlNanos = Math.max(1, leaseTime.toMillis()) * 1_000_000L;
            return Duration.ofNanos(leaseTime.toNanos() - ttlNanos + ttlNanos / 100 + 2_000_000L);
        }

        @Override
        protected Optional<? extends AbstractLease> doAcquire(LeaseRequest request) {
            long now = runtime.clock().nanoTime();
            long validity = request.leaseTime().toNanos()
                    - validityAllowance(request.leaseTime()).toNanos();
            return Optional.of(new AbstractLease("drifting", 1, request.leaseTime(), false, now + validity, runtime) {
                @Override
                protected Optional<Duration> doExtend(Duration leaseTime) {
                    return Optional.of(leaseTime.minus(validityAllowance(leaseTime)));
                }

                @Override
                protected void doRelease() {}
            });
        }
    }

    @Test
    void leaseTimeForCoversTheValidityWithTheSmallestWholeMillisecondLease() {
        DriftingLock lock = new DriftingLock();
        for (Duration validity : new Duration[] {
            Duration.ofMillis(1), Duration.ofMillis(1500), Duration.ofSeconds(20), Duration.ofMinutes(10)
        }) {
            Duration leaseTime = lock.leaseTimeFor(validity);
            assertThat(leaseTime.minus(lock.validityAllowance(leaseTime)))
                    .as("validity of the lease time asked for %s", validity)
                    .isGreaterThanOrEqualTo(validity);
            Duration shorter = leaseTime.minusMillis(1);
            assertThat(shorter.minus(lock.validityAllowance(shorter)))
                    .as("a millisecond less falls short")
                    .isLessThan(validity);
        }
        assertThat(lock.leaseTimeFor(Duration.ofSeconds(20))).isEqualTo(Duration.ofMillis(20_205));
    }

    @Test
    void aLeaseTheAllowanceEatsWholeIsRefusedNamingTheSmallestLease() throws Exception {
        DriftingLock lock = new DriftingLock();
        assertThat(lock.minimumLeaseTime()).isEqualTo(Duration.ofMillis(3));
        assertThatThrownBy(() -> lock.tryAcquire(Duration.ZERO, Duration.ofMillis(2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseTime 2ms of lock 'drifting'")
                .hasMessageContaining("smallest lease the local backend grants, 3ms");
        try (Lease lease = lock.tryAcquire(Duration.ZERO, Duration.ofMillis(3)).orElseThrow()) {
            assertThat(lease.leaseTimeFor(Duration.ofSeconds(20))).isEqualTo(Duration.ofMillis(20_205));
            assertThatThrownBy(() -> lease.extend(Duration.ofMillis(2)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("3ms");
        }
    }
}
