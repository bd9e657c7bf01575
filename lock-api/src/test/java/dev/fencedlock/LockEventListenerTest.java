package dev.fencedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What a client's {@link LockEventListener} hears, on the in-process backend. */
class LockEventListenerTest {
    private static final Duration WAIT = Duration.ofSeconds(5);

    private static LockClient client(LockEventListener listener) {
        return LockClient.create(LockConfig.builder().backend("local").build(), listener);
    }

    private static String unique(String prefix) {
        return prefix + "-" + System.nanoTime();
    }

    @Test
    void aLeaseIsGrantedOnceAndEndsOnce() throws Exception {
        RecordingListener events = new RecordingListener();
        String name = unique("granted");
        try (LockClient client = client(events)) {
            Lease lease = client.lock(name).acquire(WAIT);
            assertThat(lease.backend()).isEqualTo("local");
            assertThat(events.next()).isEqualTo("granted " + name + " local " + lease.token());
            assertThat(events.next()).isEqualTo("acquire " + name + " local ACQUIRED");
            lease.close();
            lease.close();
            assertThat(events.next()).isEqualTo("ended " + name + " local " + lease.token());
            assertThat(events.pending()).isEmpty();
        }
    }

    @Test
    void everyOutcomeOfAnAcquisitionIsReported() throws Exception {
        RecordingListener events = new RecordingListener();
        String name = unique("outcomes");
        try (LockClient client = client(events);
                Lease held = client.lock(name).acquire(WAIT)) {
            events.next();
            events.next();
            assertThat(client.lock(name).tryAcquire(Duration.ZERO)).isEmpty();
            assertThat(events.next()).isEqualTo("acquire " + name + " local NOT_ACQUIRED");
            assertThatThrownBy(() -> client.lock(name).acquire(Duration.ofMillis(20)))
                    .isInstanceOf(LockTimeoutException.class);
            assertThat(events.next()).isEqualTo("acquire " + name + " local TIMEOUT");
            assertThatThrownBy(() -> client.lock(name).acquire(Duration.ofSeconds(-1)))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(events.next()).isEqualTo("acquire " + name + " local FAILED");
            Thread.currentThread().interrupt();
            assertThatThrownBy(() -> client.lock(name).acquire(WAIT)).isInstanceOf(InterruptedException.class);
            assertThat(events.next()).isEqualTo("acquire " + name + " local INTERRUPTED");
        }
    }

    @Test
    void aLostLeaseIsReportedWithItsReasonThenEnds() throws Exception {
        RecordingListener events = new RecordingListener();
        String name = unique("lost");
        try (LockClient client = client(events)) {
            Lease lease = client.lock(name).acquire(WAIT, Duration.ofMillis(50));
            CountDownLatch lost = new CountDownLatch(1);
            lease.onLost((l, cause) -> lost.countDown());
            assertThat(lost.await(30, TimeUnit.SECONDS)).isTrue();
            events.next();
            events.next();
            assertThat(events.next()).isEqualTo("lost " + name + " EXPIRED " + lease.token());
            assertThat(events.next()).isEqualTo("ended " + name + " local " + lease.token());
            lease.close();
            assertThat(events.pending()).isEmpty();
        }
    }

    @Test
    void aListenerThatThrowsChangesNothing() throws Exception {
        LockEventListener broken = new LockEventListener() {
            @Override
            public void leaseGranted(Lease lease) {
                throw new IllegalStateException("broken listener");
            }

            @Override
            public void acquireFinished(String lockName, String backend, AcquireOutcome outcome, Duration elapsed) {
                throw new IllegalStateException("broken listener");
            }
        };
        try (LockClient client = client(broken)) {
            Optional<Lease> lease = client.lock(unique("broken")).tryAcquire(Duration.ZERO);
            assertThat(lease).isPresent();
            assertThat(lease.get().isValid()).isTrue();
            lease.get().close();
        }
    }

    @Test
    void lossesKeepTheirOldConstructorsAndReportOther() {
        assertThat(new LeaseLostException("x", 1, "gone").reason()).isEqualTo(LeaseLostException.Reason.OTHER);
        assertThat(new LeaseLostException("x", 1, LeaseLostException.Reason.TAKEN_OVER, "gone", null).reason())
                .isEqualTo(LeaseLostException.Reason.TAKEN_OVER);
    }
}
