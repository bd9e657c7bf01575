package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class HandoffTest {
    private static final long LONG_WAIT = TimeUnit.SECONDS.toNanos(30);

    private final Handoff handoff = new Handoff();

    @Test
    void aLocalReleaseWakesAParkedWaiterAtOnce() throws Exception {
        CountDownLatch registered = new CountDownLatch(1);
        CompletableFuture<Handoff.Wake> woken = CompletableFuture.supplyAsync(() -> {
            try (Handoff.Registration registration = handoff.register("a")) {
                registered.countDown();
                return registration.await(LONG_WAIT);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(registered.await(10, TimeUnit.SECONDS)).isTrue();
        handoff.released("a");
        assertThat(woken.get(10, TimeUnit.SECONDS)).isEqualTo(Handoff.Wake.LOCAL);
    }

    @Test
    void aReleaseBeforeTheWaiterParksIsKeptForIt() throws Exception {
        try (Handoff.Registration registration = handoff.register("a")) {
            handoff.releasedElsewhere("a");
            assertThat(registration.await(LONG_WAIT)).isEqualTo(Handoff.Wake.REMOTE);
            assertThat(registration.await(1_000_000)).isEqualTo(Handoff.Wake.TIMEOUT);
        }
    }

    @Test
    void aLocalReleaseOutranksARemoteOne() throws Exception {
        try (Handoff.Registration registration = handoff.register("a")) {
            handoff.releasedElsewhere("a");
            handoff.released("a");
            handoff.releasedElsewhere("a");
            assertThat(registration.await(LONG_WAIT)).isEqualTo(Handoff.Wake.LOCAL);
        }
    }

    @Test
    void releasesOfOtherNamesOrWithoutWaitersAreNotKept() throws Exception {
        handoff.released("a");
        long localReleases = handoff.localReleases();
        try (Handoff.Registration registration = handoff.register("a")) {
            handoff.released("b");
            assertThat(registration.await(1_000_000)).isEqualTo(Handoff.Wake.TIMEOUT);
        }
        assertThat(handoff.localReleases()).isEqualTo(localReleases + 1);
    }

    @Test
    void namesAreWaitedForWhileAnyRegistrationIsOpen() {
        Handoff.Registration first = handoff.register("a");
        Handoff.Registration second = handoff.register("a");
        first.close();
        assertThat(handoff.waitedFor()).containsExactly("a");
        second.close();
        assertThat(handoff.waitedFor()).isEmpty();
    }
}
