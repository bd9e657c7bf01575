package dev.fencedlock.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link BoundedAttempt}: an attempt given up leaks nothing it is granted later. */
@Timeout(60)
class BoundedAttemptTest {
    private final ExecutorService executor = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    @Test
    void aLeaseGrantedAfterTheCallerGaveUpIsReleasedAtOnce() throws Exception {
        try (LockClient client =
                LockClient.create(LockConfig.builder().backend("local").build())) {
            String name = "bounded-" + System.nanoTime();
            CountDownLatch gaveUp = new CountDownLatch(1);
            CompletableFuture<Lease> late = new CompletableFuture<>();
            BoundedAttempt.Acquisition slow = () -> {
                // a backend that answers only after the caller stopped waiting (uninterruptibly)
                while (gaveUp.getCount() > 0) {
                    try {
                        gaveUp.await();
                    } catch (InterruptedException e) {
                        // the give-up interrupt; this backend does not honour it
                    }
                }
                Lease lease = client.lock(name).acquire(Duration.ofSeconds(5));
                late.complete(lease);
                return Optional.of(lease);
            };
            assertThatThrownBy(() -> BoundedAttempt.run(
                            executor, slow, Duration.ofMillis(50).toNanos()))
                    .isInstanceOf(TimeoutException.class);
            gaveUp.countDown();
            Lease granted = late.get(10, TimeUnit.SECONDS);
            try (LockClient other =
                    LockClient.create(LockConfig.builder().backend("local").build())) {
                assertThat(other.lock(name).acquire(Duration.ofSeconds(5)))
                        .as("the late grant was released, so another client gets the lock")
                        .satisfies(Lease::close);
            }
            assertThat(granted.isValid()).isFalse();
        }
    }

    @Test
    void anAttemptWithinItsTimeReturnsWhatItGotAndItsExceptionsReachTheCaller() throws Exception {
        assertThat(BoundedAttempt.run(
                        executor, Optional::empty, Duration.ofSeconds(5).toNanos()))
                .isEmpty();
        assertThatThrownBy(() -> BoundedAttempt.run(
                        executor,
                        () -> {
                            throw new IllegalStateException("refused");
                        },
                        Duration.ofSeconds(5).toNanos()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("refused");
    }
}
