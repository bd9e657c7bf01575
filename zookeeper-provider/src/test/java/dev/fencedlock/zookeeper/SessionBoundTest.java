package dev.fencedlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SessionBoundTest {
    private static final long MS = 1_000_000L;

    @Test
    void validityIsFiveTwelfthsOfTheSessionTimeoutLessOnePercentAndTwoMilliseconds() {
        assertThat(SessionBound.validityNanos(15_000)).isEqualTo((15_000 - 3_750 - 5_000 - 150 - 2) * MS);
        assertThat(SessionBound.validityNanos(12_000)).isEqualTo((5_000 - 120 - 2) * MS);
    }

    @Test
    void requestsMayTakeAQuarterOfTheSessionTimeout() {
        assertThat(SessionBound.requestTimeoutNanos(20_000)).isEqualTo(5_000 * MS);
    }

    @Test
    void checksComeEveryThirdOfTheShorterOfLeaseTimeAndSessionBound() {
        assertThat(SessionBound.checkPeriodNanos(30_000 * MS, 12_000)).isEqualTo((5_000 - 122) * MS / 3);
        assertThat(SessionBound.checkPeriodNanos(600 * MS, 15_000)).isEqualTo(200 * MS);
        assertThat(SessionBound.checkPeriodNanos(1, 15_000)).isEqualTo(MS);
    }

    @Test
    void noSessionHasNoBound() {
        assertThatThrownBy(() -> SessionBound.validityNanos(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0ms");
    }

    @Test
    void centuriesOfLeaseTimeDoNotOverflow() {
        assertThat(SessionBound.nanos(Duration.ofDays(365L * 1_000))).isEqualTo(Long.MAX_VALUE / 4);
        assertThat(SessionBound.nanos(Duration.ofSeconds(Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE / 4);
        assertThat(SessionBound.nanos(Duration.ofMillis(5))).isEqualTo(5 * MS);
    }
}
