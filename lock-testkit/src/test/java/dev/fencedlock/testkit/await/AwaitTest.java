package dev.fencedlock.testkit.await;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AwaitTest {
    @Test
    void pollsUntilTheValueIsAcceptedAndReturnsIt() throws InterruptedException {
        AtomicInteger polls = new AtomicInteger();
        int value = Await.value("third poll", Duration.ofSeconds(30), polls::incrementAndGet, n -> n >= 3);
        assertThat(value).isEqualTo(3);
    }

    @Test
    void aConditionThatNeverHoldsFailsNamingItAndTheLastValue() {
        assertThatThrownBy(() -> Await.value("the answer", Duration.ofMillis(120), () -> 41, n -> n == 42))
                .isInstanceOf(AssertionError.class)
                .hasMessage("the answer within PT0.12S; last seen: 41");
        assertThatThrownBy(() -> Await.until("never", Duration.ZERO, () -> false))
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("never within PT0S");
    }

    @Test
    void aLatchThatStaysOpenFailsWithWhatWasAwaited() throws InterruptedException {
        CountDownLatch latch = new CountDownLatch(2);
        latch.countDown();
        assertThatThrownBy(() -> Await.latch(latch, Duration.ofMillis(50), "both replies"))
                .isInstanceOf(AssertionError.class)
                .hasMessage("both replies did not happen within PT0.05S (1 left)");
        latch.countDown();
        Await.latch(latch, Duration.ofSeconds(30), "both replies");
    }

    @Test
    void aNegativeTimeoutIsRefused() {
        assertThatThrownBy(() -> Await.until("x", Duration.ofMillis(-1), () -> true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT-0.001S");
    }
}
