package dev.fencedlock.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.Lease;
import dev.fencedlock.LeaseLostException;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link AbstractLease#stopRenewal}: an auto-renewing lease runs out within one lease time after it. */
@Timeout(60)
class StopRenewalTest {
    private static final Duration LEASE_TIME = Duration.ofMillis(600);

    @Test
    void aStoppedLeaseRunsOutWithinOneLeaseTimeIsLostOnceAndFreesTheLock() throws Exception {
        LockConfig config =
                LockConfig.builder().backend("local").leaseTime(LEASE_TIME).build();
        try (LockClient client = LockClient.create(config);
                LockClient other = LockClient.create(config)) {
            String name = "stop-renewal-" + System.nanoTime();
            AbstractLease lease = (AbstractLease) client.lock(name).acquire(Duration.ofSeconds(5));
            CompletableFuture<LeaseLostException> lost = new CompletableFuture<>();
            lease.onLost((ignored, cause) -> lost.complete(cause));

            Thread.sleep(LEASE_TIME.multipliedBy(2).toMillis());
            assertThat(lease.isValid())
                    .as("renewal keeps it past its lease time")
                    .isTrue();

            long stoppedAt = System.nanoTime();
            lease.stopRenewal("a test stopped it");
            lease.stopRenewal("a second reason is ignored");
            assertThat(lease.renewalStopped()).isTrue();
            assertThat(lease.remaining()).isLessThanOrEqualTo(LEASE_TIME);
            assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(10)))
                    .isInstanceOf(LeaseLostException.class)
                    .hasMessageContaining("a test stopped it");

            LeaseLostException cause = lost.get(10, TimeUnit.SECONDS);
            Duration lostAfter = Duration.ofNanos(System.nanoTime() - stoppedAt);
            assertThat(cause.reason()).isEqualTo(LeaseLostException.Reason.EXPIRED);
            assertThat(cause.getMessage()).contains("renewal was stopped (a test stopped it)");
            assertThat(lostAfter)
                    .as("lost within one lease time (and the watchdog's tick and a loaded machine's delay)")
                    .isLessThan(LEASE_TIME.plusSeconds(2));
            try (Lease next = other.lock(name).acquire(Duration.ofSeconds(5))) {
                assertThat(next.isValid()).isTrue();
            }
        }
    }
}
