package dev.fencedlock.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.BackendStatus;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockConfig.FallbackTakeover;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.RecordingListener;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Routing between a primary and its fallback, with the test backend {@code acme} as a primary
 * that can be made unreachable and {@code local} as the fallback. The real backends' failover, with
 * Redis losing its quorum, is in the fault-injection suite.
 */
class FallbackTest {
    private static final Duration WAIT = Duration.ofSeconds(5);

    /** The routing tests take over at once; the wait-out is {@link FailoverTest}'s and the tests below. */
    private static LockConfig acmeWithLocalFallback() {
        return acmeWithLocalFallback(FallbackTakeover.IMMEDIATE, Duration.ofSeconds(30));
    }

    static LockConfig acmeWithLocalFallback(FallbackTakeover takeover, Duration leaseTime) {
        return LockConfig.builder()
                .backend("acme")
                .set(AcmeProviderFactory.URL, "acme://test")
                .fallback("local")
                .fallbackTakeover(takeover)
                .leaseTime(leaseTime)
                .build();
    }

    @Test
    void byDefaultTheFallbackGrantsOnlyAfterThePrimarysLongestLeaseAndACallWhoseWaitEndsBeforeThrowsSayingWhen()
            throws Exception {
        Duration leaseTime = Duration.ofMillis(800);
        String name = "wait-out-" + System.nanoTime();
        try (LockClient client = LockClient.create(acmeWithLocalFallback(FallbackTakeover.WAIT_OUT, leaseTime))) {
            Lease onPrimary = client.lock(name).acquire(WAIT, Duration.ofMillis(1200));
            assertThat(onPrimary.backend()).isEqualTo("acme");
            AcmeProviderFactory.down = true;
            long failedAt = System.nanoTime();
            assertThatThrownBy(() -> client.lock(name).tryAcquire(Duration.ZERO))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("backend acme cannot answer since")
                    .hasMessageContaining("fallback local grants from")
                    .hasMessageContaining("(1200ms)")
                    .hasMessageContaining("fencedlock.fallback-takeover=immediate")
                    .hasMessageContaining("only fenced effects are safe");
            assertThat(client.status().get(1).state())
                    .as("the fallback, answering but kept from granting until the takeover")
                    .isEqualTo(BackendStatus.State.DOWN);
            // the fixed 1.2 s lease asked of acme, longer than the lease time, is what is waited out
            Lease onFallback = client.lock(name).acquire(WAIT);
            long grantedAfter = System.nanoTime() - failedAt;
            assertThat(onFallback.backend()).isEqualTo("local");
            assertThat(Duration.ofNanos(grantedAfter)).isGreaterThanOrEqualTo(Duration.ofMillis(1200));
            assertThat(client.status().get(1).state())
                    .as("the fallback once it took over")
                    .isNotEqualTo(BackendStatus.State.DOWN);
            assertThat(onPrimary.isValid())
                    .as("the primary's lease ran out before the fallback granted")
                    .isFalse();
            onFallback.close();
            onPrimary.close();
        }
    }

    @Test
    void aCallWhoseWaitReachesTheTakeoverWaitsForItAndIsGrantedWithinItsWait() throws Exception {
        Duration leaseTime = Duration.ofMillis(500);
        try (LockClient client = LockClient.create(acmeWithLocalFallback(FallbackTakeover.WAIT_OUT, leaseTime))) {
            AcmeProviderFactory.down = true;
            long start = System.nanoTime();
            Lease lease = client.lock("wait-in-" + System.nanoTime()).acquire(Duration.ofSeconds(3));
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(lease.backend()).isEqualTo("local");
            assertThat(took).isBetween(leaseTime, Duration.ofSeconds(3).plus(PrimaryProbe.PRIMARY_ATTEMPT_FLOOR));
            lease.close();
        }
    }

    @Test
    void statusListsThePrimaryThenTheFallbackAndAThirdPartyProviderNeedsNothing() {
        try (LockClient client = LockClient.create(acmeWithLocalFallback())) {
            assertThat(client.status())
                    .containsExactly(
                            BackendStatus.unknown("acme"),
                            new BackendStatus("local", BackendStatus.State.UP, List.of()));
            client.close();
            assertThatThrownBy(client::status).isInstanceOf(IllegalStateException.class);
        }
    }

    @AfterEach
    void primaryUp() {
        AcmeProviderFactory.down = false;
    }

    @Test
    void leasesComeFromTheFallbackWhileThePrimaryCannotAnswerAndFromThePrimaryAfter() throws Exception {
        RecordingListener events = new RecordingListener();
        String name = "fallback-" + System.nanoTime();
        try (LockClient client = LockClient.create(acmeWithLocalFallback(), events)) {
            try (Lease lease = client.lock(name).acquire(WAIT)) {
                assertThat(lease.backend()).isEqualTo("acme");
            }
            AcmeProviderFactory.down = true;
            try (Lease lease = client.lock(name).acquire(WAIT)) {
                assertThat(lease.backend()).isEqualTo("local");
            }
            int callsWhileDown = AcmeProviderFactory.CALLS.get();
            try (Lease lease = client.lock(name).acquire(WAIT)) {
                assertThat(lease.backend()).isEqualTo("local");
            }
            assertThat(AcmeProviderFactory.CALLS.get() - callsWhileDown)
                    .as("acquisitions while on the fallback do not ask the primary; only the probe does")
                    .isZero();

            AcmeProviderFactory.down = false;
            Lease back = awaitLeaseFrom(client, name, "acme");
            back.close();
            assertThat(events.pending())
                    .filteredOn(event -> event.startsWith("switched"))
                    .containsExactly(
                            "switched " + name + " acme->local LockUnavailableException",
                            "switched " + name + " local->acme -");
        }
    }

    private static Lease awaitLeaseFrom(LockClient client, String name, String backend) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            Lease lease = client.lock(name).acquire(WAIT);
            if (lease.backend().equals(backend) || System.nanoTime() > deadline) {
                return lease;
            }
            lease.close();
            Thread.sleep(50);
        }
    }

    @Test
    void theAcquisitionThatFindsThePrimaryDownIsStillGrantedWithinItsWait() throws Exception {
        try (LockClient client = LockClient.create(acmeWithLocalFallback())) {
            AcmeProviderFactory.down = true;
            assertThat(client.lock("down-" + System.nanoTime()).tryAcquire(Duration.ZERO))
                    .hasValueSatisfying(lease -> {
                        assertThat(lease.backend()).isEqualTo("local");
                        lease.close();
                    });
        }
    }

    @Test
    void theListenerNamesTheBackendThatGrantedAndTheClientReleasesTheFallbacksLeases() throws Exception {
        RecordingListener events = new RecordingListener();
        String name = "fallback-close-" + System.nanoTime();
        Lease onFallback;
        try (LockClient client = LockClient.create(acmeWithLocalFallback(), events)) {
            AcmeProviderFactory.down = true;
            onFallback = client.lock(name).acquire(WAIT);
            assertThat(onFallback.backend()).isEqualTo("local");
            assertThat(events.pending())
                    .contains(
                            "granted " + name + " local " + onFallback.token(), "acquire " + name + " local ACQUIRED");
        }
        assertThat(onFallback.isValid())
                .as("closing the client releases the fallback's leases")
                .isFalse();
        assertThat(events.pending()).containsExactly("ended " + name + " local " + onFallback.token());
        try (LockClient other =
                LockClient.create(LockConfig.builder().backend("local").build())) {
            assertThat(other.lock(name).tryAcquire(Duration.ZERO)).hasValueSatisfying(Lease::close);
        }
    }

    @Test
    void aLockTakenOnTheFallbackIsNotAcquiredAsOnAnyBackend() throws Exception {
        RecordingListener events = new RecordingListener();
        String name = "taken-on-fallback-" + System.nanoTime();
        try (LockClient client = LockClient.create(acmeWithLocalFallback(), events);
                LockClient other =
                        LockClient.create(LockConfig.builder().backend("local").build());
                Lease held = other.lock(name).acquire(WAIT)) {
            AcmeProviderFactory.down = true;
            assertThat(client.lock(name).tryAcquire(Duration.ofMillis(50))).isEmpty();
            assertThat(events.pending()).contains("acquire " + name + " local NOT_ACQUIRED");
        }
    }

    @Test
    void withoutAFallbackThePrimarysFailureReachesTheCaller() {
        LockConfig noFallback = LockConfig.builder()
                .backend("acme")
                .set(AcmeProviderFactory.URL, "acme://test")
                .build();
        try (LockClient client = LockClient.create(noFallback)) {
            AcmeProviderFactory.down = true;
            assertThatThrownBy(() -> client.lock("x").acquire(WAIT)).isInstanceOf(LockUnavailableException.class);
        }
    }

    @Test
    void aFallbackThatCannotBeUsedIsAnErrorAtStartUp() {
        assertThatThrownBy(() ->
                        LockConfig.builder().backend("local").fallback("local").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fencedlock.fallback 'local' is the same as fencedlock.backend");
        LockConfig unknown =
                LockConfig.builder().backend("local").fallback("etcd").build();
        assertThatThrownBy(() -> LockClient.create(unknown))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Unknown fencedlock.fallback 'etcd'")
                .hasMessageContaining("[acme, local]");
        LockConfig withoutItsKeys =
                LockConfig.builder().backend("local").fallback("acme").build();
        assertThatThrownBy(() -> LockClient.create(withoutItsKeys))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fencedlock.acme.url is required");
    }
}
