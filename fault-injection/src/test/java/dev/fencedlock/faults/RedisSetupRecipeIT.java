package dev.fencedlock.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.LockClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The set-up recipes of docs/which-redis.md work as written: a Sentinel group and a Redis Cluster
 * started from exactly the page's configuration lines and {@code redis-cli --cluster create}
 * command (only addresses, ports and directories filled in), a client configured from the page's
 * properties, and a failover after a SIGKILL of the master measured until the next grant, with the
 * page's fast-failover settings. The page's table shows these times; the failover on the blocks as
 * they stand is {@link RedisSetupRecipeDefaultsIT}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisSetupRecipeIT {

    @Test
    void aSentinelGroupWithTheFastSettingsFailsOverWithinTheShortLeaseTime() throws InterruptedException {
        try (SentinelRecipe group = SentinelRecipe.start(List.of("sentinel-fast.conf"));
                LockClient client = group.client(List.of("sentinel-fast-client.properties"))) {
            Duration failover = group.failover(client, "recipe-fast", Duration.ofSeconds(40));
            System.out.printf(
                    "which-redis recipe, Sentinel, fast settings: first grant %d ms after SIGKILL%n",
                    failover.toMillis());
            // one second to call the master down, about one to promote, then one 5 s lease of quarantine
            assertThat(failover).isBetween(Duration.ofSeconds(5), Duration.ofSeconds(15));
        }
    }

    @Test
    void aSentinelGroupWithoutTheQuarantineFailsOverAsFastAsSentinel() throws InterruptedException {
        try (SentinelRecipe group = SentinelRecipe.start(List.of("sentinel-fast.conf"));
                LockClient client = group.client(
                        List.of("sentinel-fast-client.properties", "sentinel-fastest-client.properties"))) {
            Duration failover = group.failover(client, "recipe-fastest", Duration.ofSeconds(40));
            System.out.printf(
                    "which-redis recipe, Sentinel, fastest settings: first grant %d ms after SIGKILL%n",
                    failover.toMillis());
            assertThat(failover).isLessThan(Duration.ofSeconds(5));
        }
    }

    @Test
    void aClusterFromThePageFailsOverAShardWithinItsNodeTimeoutAndAFewSeconds() throws InterruptedException {
        try (ClusterRecipe cluster = ClusterRecipe.start();
                LockClient client = cluster.client()) {
            Duration failover = cluster.failover(client, "recipe-cluster", Duration.ofSeconds(40));
            System.out.printf(
                    "which-redis recipe, Cluster: first grant %d ms after SIGKILL of the lock's master%n",
                    failover.toMillis());
            // cluster-node-timeout 5000, then the replica's election
            assertThat(failover).isBetween(Duration.ofSeconds(5), Duration.ofSeconds(15));
        }
    }
}
