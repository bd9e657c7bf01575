package dev.fencedlock.examples.inventory;

import static dev.fencedlock.examples.inventory.InventoryAppIT.assertInvariantsHold;
import static dev.fencedlock.examples.inventory.InventoryAppIT.run;
import static dev.fencedlock.examples.inventory.InventoryAppIT.shortRun;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.testkit.junit.PerClassResource;
import dev.fencedlock.testkit.redis.RedisSentinelGroup;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The example switched to a Redis Sentinel deployment by one flag ({@code --redis-sentinel}): a
 * real master, a replica and three Sentinels. The run keeps its workers in this JVM (a run with
 * worker processes costs a JVM start per process, well over this class's budget); that worker
 * processes get the same Sentinel configuration is checked on the flags they are given.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class InventoryAppSentinelIT {
    private static final String MASTER = "fencedlock-inventory";

    @RegisterExtension
    static final PerClassResource<RedisSentinelGroup> sentinel =
            PerClassResource.of(() -> RedisSentinelGroup.start(MASTER, 1, 3, Duration.ofSeconds(5)));

    @Test
    void sentinelSellsEveryUnitOnceAndTheFenceRefusesTheBrokenAndStalledWrites() {
        InventoryAppIT.Run run =
                shortRun("--redis-sentinel", MASTER + "@" + sentinel.get().sentinelNodes());
        assertThat(run.output())
                .contains("redlock on the Sentinel master " + MASTER + " (3 Sentinels)")
                .contains("worker 1 has its lock deleted on the backend");
        assertInvariantsHold(run, 60);
        assertThat(sentinel.get().masterPort(sentinel.get().sentinels().get(0)))
                .as("no failover during the run: the locks were on the master started as one")
                .isEqualTo(sentinel.get().master().port());
    }

    @Test
    void workerProcessesAreGivenTheSameSentinelConfiguration() throws Exception {
        String flag = MASTER + "@127.0.0.1:26390,127.0.0.1:26391";
        RunSettings settings = RunSettings.parse(new String[] {"--redis-sentinel", flag, "--processes", "2"});
        try (LockSetup coordinator = LockSetup.resolve(settings)) {
            List<String> workerArgs = new ArrayList<>(
                    settings.workerProcessArgs("jdbc:h2:tcp://x/db", URI.create("http://127.0.0.1:8080"), 1, 4));
            workerArgs.addAll(coordinator.workerProcessArgs());
            assertThat(workerArgs).containsSubsequence("--redis-sentinel", flag);
            try (LockSetup worker = LockSetup.resolve(RunSettings.parse(workerArgs.toArray(String[]::new)))) {
                RedlockSettings.Sentinel seen =
                        LockSetup.redlock(worker.config()).sentinel().orElseThrow();
                assertThat(worker.config().backend()).isEqualTo("redlock");
                assertThat(seen.master()).isEqualTo(MASTER);
                assertThat(seen.sentinels())
                        .extracting(node -> node.host() + ":" + node.port())
                        .containsExactly("127.0.0.1:26390", "127.0.0.1:26391");
                assertThat(LockSetup.redlock(worker.config()).nodes()).isEmpty();
            }
        }
    }

    @Test
    void aSentinelFlagWithoutMasterOrTogetherWithRedisIsRefusedByName() {
        InventoryAppIT.Run noMaster = run("--redis-sentinel", "127.0.0.1:26379");
        assertThat(noMaster.exitCode()).isEqualTo(2);
        assertThat(noMaster.output())
                .contains("--redis-sentinel needs MASTER@HOST:PORT[,HOST:PORT...], got '127.0.0.1:26379'")
                .contains("--redis-sentinel MASTER@HOST:PORT,HOST:PORT");
        InventoryAppIT.Run both = run("--redis", "redis://127.0.0.1:6390", "--redis-sentinel", "m@127.0.0.1:26379");
        assertThat(both.exitCode()).isEqualTo(2);
        assertThat(both.output()).contains("are two ways to reach Redis; give one");
    }
}
