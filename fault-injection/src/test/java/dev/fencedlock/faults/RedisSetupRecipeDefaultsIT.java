package dev.fencedlock.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.LockClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Sentinel group of docs/which-redis.md as its blocks stand, with the library's defaults (30 s
 * lease time, quarantine on): a failover after a SIGKILL of the master is granted again only after
 * Sentinel's 5 s {@code down-after-milliseconds}, the promotion and one lease time. Long (over a
 * minute: a fresh master also sits out a lease time before the first grant), so it runs in the long
 * fault scenarios, not the default build.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RedisSetupRecipeDefaultsIT {

    @Test
    void aSentinelGroupOnTheDefaultsFailsOverAfterDetectionAndOneLeaseTime() throws InterruptedException {
        try (SentinelRecipe group = SentinelRecipe.start(List.of());
                LockClient client = group.client(List.of())) {
            Duration failover = group.failover(client, "recipe-defaults", Duration.ofSeconds(70));
            System.out.printf(
                    "which-redis recipe, Sentinel, defaults: first grant %d ms after SIGKILL%n", failover.toMillis());
            assertThat(failover).isBetween(Duration.ofSeconds(30), Duration.ofSeconds(50));
        }
    }
}
