package dev.fencedlock.examples.inventory;

import static dev.fencedlock.examples.inventory.InventoryAppIT.assertInvariantsHold;
import static dev.fencedlock.examples.inventory.InventoryAppIT.shortRun;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.redlock.RedlockKeys;
import dev.fencedlock.testkit.junit.PerClassResource;
import dev.fencedlock.testkit.redis.RedisCluster;
import dev.fencedlock.testkit.redis.RedisServerProcess;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The example switched to a Redis Cluster by one flag ({@code --redis-cluster}): three real
 * masters with the slots split between them. The workers stay in this JVM (a worker JVM costs more
 * than this class's budget); the flags a worker process is given are checked in {@link
 * RunSettingsTest}.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class InventoryAppClusterIT {
    @RegisterExtension
    static final PerClassResource<RedisCluster> cluster = PerClassResource.of(() -> RedisCluster.start(3));

    @Test
    void aClusterSellsEveryUnitOnceAndTheFenceRefusesTheBrokenAndStalledWrites() {
        InventoryAppIT.Run run = shortRun("--redis-cluster", cluster.get().seeds());
        assertThat(run.output())
                .contains("redlock on a Redis Cluster (3 seed nodes)")
                .contains("worker 1 has its lock deleted on the backend");
        assertInvariantsHold(run, 60);
        for (int sku = 0; sku < 2; sku++) {
            String tokenKey = RedlockKeys.tokenKey(OrderPlacer.lockName(InventoryDatabase.skuName(sku)));
            RedisServerProcess owner = cluster.get().ownerOf(cluster.get().slotOf(tokenKey));
            assertThat(Long.parseLong(String.valueOf(owner.command("GET", tokenKey))))
                    .as("the token counter %s on %s, the master of its slot", tokenKey, owner)
                    .isPositive();
        }
    }
}
