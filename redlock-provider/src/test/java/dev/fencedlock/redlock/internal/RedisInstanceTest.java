package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RedisInstanceTest {
    private static final String INFO =
            "# Server\r\nredis_version:7.0.15\r\nrun_id:59f9cfb3ed4e94ae08f6ec965a09779427ea6085\r\n"
                    + "tcp_port:6380\r\nuptime_in_seconds:42\r\nuptime_in_days:0\r\n";

    @Test
    void readsRunIdAndDatesTheStartByTheUptimeLessTheSecondItMayRunAhead() {
        RedisInstance instance = RedisInstance.fromInfo(INFO, 100_000_000_000L);
        assertThat(instance.runId()).isEqualTo("59f9cfb3ed4e94ae08f6ec965a09779427ea6085");
        assertThat(instance.startedAtNanos()).isEqualTo(59_000_000_000L);
        assertThat(instance.probedAtNanos()).isEqualTo(100_000_000_000L);
        assertThat(instance.shortRunId()).isEqualTo("59f9cfb3");
    }

    @Test
    void aReplyWithoutTheFieldsIsRejected() {
        assertThatThrownBy(() -> RedisInstance.fromInfo("# Server\r\nredis_version:7.0.15\r\n", 0))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("run_id");
    }

    @Test
    void aMemoryLimitWithAnEvictingPolicyIsNoted() {
        RedisInstance instance = RedisInstance.fromInfo(
                INFO + "# Memory\r\nused_memory:1000\r\nmaxmemory:10485760\r\nmaxmemory_policy:allkeys-lru\r\n",
                100_000_000_000L);
        assertThat(instance.evictionPolicy()).isEqualTo("allkeys-lru with maxmemory 10485760");
    }

    @Test
    void noevictionNoLimitOrNoMemorySectionMeansNothingIsEvicted() {
        assertThat(RedisInstance.fromInfo(INFO + "maxmemory:10485760\r\nmaxmemory_policy:noeviction\r\n", 0)
                        .evictionPolicy())
                .isNull();
        assertThat(RedisInstance.fromInfo(INFO + "maxmemory:0\r\nmaxmemory_policy:volatile-lru\r\n", 0)
                        .evictionPolicy())
                .as("0 is no limit")
                .isNull();
        assertThat(RedisInstance.fromInfo(INFO, 0).evictionPolicy()).isNull();
    }
}
