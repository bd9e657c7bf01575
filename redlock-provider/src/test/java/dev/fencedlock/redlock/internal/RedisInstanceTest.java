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

    @Test
    void onlyAPromotedMasterTakesAPromotionDateAndNeverALaterOneThanItsProbe() {
        String replication = "# Replication\r\nrole:master\r\nmaster_replid:"
                + "4998c5684123d852e3e5817c7ec6548994c816e6\r\nmaster_replid2:";
        RedisInstance promoted = RedisInstance.fromInfo(
                INFO, replication + "d3d65560dce9f005686dfb7d537becd44910f5fb\r\n", 100_000_000_000L);
        assertThat(promoted.promoted()).isTrue();
        assertThat(promoted.startedAtNanos()).as("dated from the probe").isEqualTo(100_000_000_000L);
        assertThat(promoted.promotedBy(70_000_000_000L).startedAtNanos()).isEqualTo(70_000_000_000L);
        assertThat(promoted.promotedBy(70_000_000_000L).runId()).isEqualTo(promoted.runId());
        assertThat(promoted.promotedBy(120_000_000_000L).startedAtNanos())
                .as("a date after the probe moves nothing")
                .isEqualTo(100_000_000_000L);
        RedisInstance neverPromoted = RedisInstance.fromInfo(
                INFO, replication + "0000000000000000000000000000000000000000\r\n", 100_000_000_000L);
        assertThat(neverPromoted.promoted()).isFalse();
        assertThat(neverPromoted.promotedBy(10_000_000_000L))
                .as("a restarted master's start is its process start, whatever a Sentinel says")
                .isSameAs(neverPromoted);
        assertThat(promoted.withPersistence("aof_enabled:0\r\n", "no").promoted())
                .isTrue();
    }
}
