package dev.fencedlock.testkit.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.Lease;
import dev.fencedlock.LeaseLostException;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.testkit.await.Await;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Each fault's effect on the holder's lease, its listeners, the lock and the tokens. */
class LocalLockFaultsTest {
    private static final Duration BOUND = Duration.ofSeconds(30);

    private LockClient holder;
    private LockClient other;
    private String name;

    @BeforeEach
    void clients() {
        LockConfig config = LockConfig.builder()
                .backend("local")
                .leaseTime(Duration.ofSeconds(3))
                .build();
        holder = LockClient.create(config);
        other = LockClient.create(config);
        name = "faults:" + UUID.randomUUID();
    }

    @AfterEach
    void close() {
        holder.close();
        other.close();
    }

    /** Records the first loss report of a lease. */
    private static final class LossProbe {
        final CountDownLatch lost = new CountDownLatch(1);
        final AtomicReference<LeaseLostException> cause = new AtomicReference<>();

        LossProbe(Lease lease) {
            lease.onLost((l, e) -> {
                cause.set(e);
                lost.countDown();
            });
        }
    }

    @Test
    void aLostLeaseLooksValidUntilTheHolderTalksToTheBackendWhileASuccessorHoldsTheLock() throws InterruptedException {
        Lease fixed = holder.lock(name).acquire(Duration.ZERO, Duration.ofMinutes(5));
        LossProbe probe = new LossProbe(fixed);

        LocalLockFaults.loseLease(name);

        assertThat(fixed.isValid()).as("the holder has not heard of the loss").isTrue();
        try (Lease successor = other.lock(name).tryAcquire(Duration.ZERO).orElseThrow()) {
            assertThat(successor.token()).isGreaterThan(fixed.token());
            assertThat(probe.lost.getCount()).as("no loss report yet").isEqualTo(1);
            assertThatThrownBy(() -> fixed.extend(Duration.ofMinutes(5))).isInstanceOf(LeaseLostException.class);
            assertThat(fixed.isValid()).isFalse();
            Await.latch(probe.lost, BOUND, "loss report after the extension failed");
            assertThat(successor.isValid()).isTrue();
        }
    }

    @Test
    void anAutoRenewingLeaseLearnsOfTheLossAtItsNextRenewal() throws InterruptedException {
        Lease renewing = holder.lock(name).acquire(Duration.ZERO);
        LossProbe probe = new LossProbe(renewing);

        LocalLockFaults.loseLease(name);

        Await.latch(probe.lost, BOUND, "loss report from the renewal");
        assertThat(probe.cause.get()).hasMessageContaining("no longer held");
        assertThat(renewing.isValid()).isFalse();
    }

    @Test
    void anExpiredLeaseIsInvalidAndReportedAtOnceAndTheLockIsFree() throws InterruptedException {
        Lease renewing = holder.lock(name).acquire(Duration.ZERO);
        LossProbe probe = new LossProbe(renewing);

        assertThat(LocalLockFaults.expireLease(name)).isTrue();

        assertThat(renewing.isValid()).isFalse();
        assertThat(renewing.remaining()).isZero();
        Await.latch(probe.lost, BOUND, "loss report of the expired lease");
        assertThat(probe.cause.get()).hasMessageContaining("ran out");
        try (Lease successor = other.lock(name).tryAcquire(Duration.ZERO).orElseThrow()) {
            assertThat(successor.token()).isGreaterThan(renewing.token());
        }
        assertThat(LocalLockFaults.expireLease(name)).as("nothing holds it now").isFalse();
    }

    @Test
    void expiringALockNobodyHoldsDoesNothing() throws InterruptedException {
        assertThat(LocalLockFaults.expireLease(name)).isFalse();
        try (Lease lease = holder.lock(name).tryAcquire(Duration.ZERO).orElseThrow()) {
            assertThat(lease.isValid()).isTrue();
        }
    }

    @Test
    void aTokenJumpMakesTheNextGrantLargerByAtLeastTheJumpAndLeavesTheHolderAlone() throws InterruptedException {
        long before;
        try (Lease first = holder.lock(name).tryAcquire(Duration.ZERO).orElseThrow()) {
            before = first.token();
            long skipped = LocalLockFaults.jumpTokens(1_000_000);
            assertThat(skipped).isGreaterThanOrEqualTo(before + 1_000_000);
            assertThat(first.isValid()).isTrue();
        }
        Optional<Lease> next = other.lock(name).tryAcquire(Duration.ZERO);
        assertThat(next).isPresent();
        try (Lease lease = next.get()) {
            assertThat(lease.token()).isGreaterThan(before + 1_000_000);
        }
    }

    @Test
    void badArgumentsAreRefusedWithTheirValue() {
        assertThatThrownBy(() -> LocalLockFaults.jumpTokens(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("by must be positive, got 0");
        assertThatThrownBy(() -> LocalLockFaults.expireLease(" ")).isInstanceOf(IllegalArgumentException.class);
    }
}
