package dev.fencedlock.examples.inventory;

import static dev.fencedlock.examples.inventory.InventoryAppIT.assertInvariantsHold;
import static dev.fencedlock.examples.inventory.InventoryAppIT.run;
import static dev.fencedlock.examples.inventory.InventoryAppIT.shortRun;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.testkit.junit.RedisServersExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The same example switched to Redlock by flags alone, on three real redis-server processes. */
class InventoryAppRedlockIT {
    @RegisterExtension
    static final RedisServersExtension redis = RedisServersExtension.nodes(3);

    @Test
    void redlockSellsEveryUnitOnceAndRefusesTheStalledWrite() {
        InventoryAppIT.Run run = shortRun("--redis", redis.servers().nodes());
        assertThat(run.output()).contains("redlock over 3 Redis nodes");
        assertInvariantsHold(run, 60);
    }

    @Test
    void redlockWorkersInSeparateProcessesShareOneH2Server() {
        InventoryAppIT.Run run = run(
                "--backend",
                "redlock",
                "--redis",
                redis.servers().nodes(),
                "--processes",
                "2",
                "--workers",
                "4",
                "--skus",
                "2",
                "--stock",
                "20",
                "--lease",
                "1500ms",
                "--stall",
                "3500ms");
        assertThat(run.output()).contains("2 process(es)").contains("TCP server");
        assertInvariantsHold(run, 40);
    }
}
