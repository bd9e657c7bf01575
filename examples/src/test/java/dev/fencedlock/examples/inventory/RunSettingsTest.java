package dev.fencedlock.examples.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.redlock.RedlockSettings;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The Redis flags of the inventory example, parsed and turned into lock configuration (no servers). */
class RunSettingsTest {

    @Test
    void aClusterFlagGivesTheSeedsWithoutBlanks() {
        RunSettings settings = RunSettings.parse(new String[] {"--redis-cluster", " 127.0.0.1:7001, localhost:7002 "});
        assertThat(settings.redisCluster()).contains("127.0.0.1:7001,localhost:7002");
        assertThat(settings.redisNodes()).isEmpty();
        assertThat(settings.redisSentinel()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", ":7001", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536", "a:7001,", "h:port"})
    void aClusterFlagThatIsNoListOfHostAndPortIsRefusedWithTheExpectedForm(String value) {
        assertThatThrownBy(() -> RunSettings.parse(new String[] {"--redis-cluster", value}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--redis-cluster needs HOST:PORT[,HOST:PORT...], got '" + value + "'");
    }

    @Test
    void aClusterFlagWithAnotherWayToReachRedisIsRefusedNamingBoth() {
        assertThatThrownBy(() -> RunSettings.parse(
                        new String[] {"--redis", "redis://127.0.0.1:6390", "--redis-cluster", "127.0.0.1:7001"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--redis 'redis://127.0.0.1:6390' and --redis-cluster '127.0.0.1:7001'"
                        + " are two ways to reach Redis; give one");
        assertThatThrownBy(() -> RunSettings.parse(
                        new String[] {"--redis-cluster", "127.0.0.1:7001", "--redis-sentinel", "m@127.0.0.1:26379"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--redis-sentinel 'm@127.0.0.1:26379' and --redis-cluster '127.0.0.1:7001'"
                        + " are two ways to reach Redis; give one");
        assertThatThrownBy(() -> RunSettings.parse(
                        new String[] {"--redis-sentinel", "m@127.0.0.1:26379", "--redis", "redis://127.0.0.1:6390"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--redis 'redis://127.0.0.1:6390' and --redis-sentinel 'm@127.0.0.1:26379'"
                        + " are two ways to reach Redis; give one");
    }

    @Test
    void theUsageShowsTheClusterFlag() {
        assertThat(RunSettings.USAGE).contains("--redis-cluster HOST:PORT[,HOST:PORT...]");
        InventoryAppIT.Run refused = InventoryAppIT.run("--redis-cluster", "127.0.0.1");
        assertThat(refused.exitCode()).isEqualTo(2);
        assertThat(refused.output())
                .contains("error: --redis-cluster needs HOST:PORT[,HOST:PORT...], got '127.0.0.1'")
                .contains("Usage:");
    }

    @Test
    void theClusterFlagConfiguresRedlockOnTheClusterInThisJvmAndInEveryWorkerProcess() throws Exception {
        String seeds = "127.0.0.1:7001,127.0.0.1:7002";
        RunSettings settings = RunSettings.parse(new String[] {"--redis-cluster", seeds, "--processes", "2"});
        try (LockSetup coordinator = LockSetup.resolve(settings)) {
            assertClusterConfig(coordinator);
            List<String> workerArgs = new ArrayList<>(
                    settings.workerProcessArgs("jdbc:h2:tcp://x/db", URI.create("http://127.0.0.1:8080"), 1, 4));
            workerArgs.addAll(coordinator.workerProcessArgs());
            assertThat(workerArgs).containsSubsequence("--redis-cluster", seeds);
            try (LockSetup worker = LockSetup.resolve(RunSettings.parse(workerArgs.toArray(String[]::new)))) {
                assertClusterConfig(worker);
            }
        }
    }

    private static void assertClusterConfig(LockSetup setup) {
        RedlockSettings redlock = LockSetup.redlock(setup.config());
        assertThat(setup.config().backend()).isEqualTo("redlock");
        assertThat(redlock.clusterNodes())
                .extracting(node -> node.host() + ":" + node.port())
                .containsExactly("127.0.0.1:7001", "127.0.0.1:7002");
        assertThat(redlock.nodes()).isEmpty();
        assertThat(redlock.sentinel()).isEmpty();
        assertThat(setup.describe()).isEqualTo("redlock on a Redis Cluster (2 seed nodes)");
    }
}
