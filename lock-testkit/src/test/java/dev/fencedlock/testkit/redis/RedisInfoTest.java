package dev.fencedlock.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedisInfoTest {
    @Test
    void theUptimeIsReadFromInfoServer() {
        assertThat(RedisInfo.uptimeSeconds(
                        "# Server\r\nredis_version:7.4.1\r\nuptime_in_seconds:17\r\nuptime_in_days:0\r\n"))
                .isEqualTo(17);
        assertThatThrownBy(() -> RedisInfo.uptimeSeconds("# Server\r\n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no uptime_in_seconds");
    }

    @Test
    void theNeededUptimeRoundsTheQuarantineUpAndAddsTwoSeconds() {
        assertThat(RedisInfo.uptimeNeededSeconds(Duration.ofSeconds(2))).isEqualTo(4);
        assertThat(RedisInfo.uptimeNeededSeconds(Duration.ofMillis(1500))).isEqualTo(4);
        assertThat(RedisInfo.uptimeNeededSeconds(Duration.ofMillis(1))).isEqualTo(3);
    }
}
