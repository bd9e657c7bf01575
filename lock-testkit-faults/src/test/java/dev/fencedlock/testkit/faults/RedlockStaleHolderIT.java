package dev.fencedlock.testkit.faults;

import dev.fencedlock.LockClient;
import dev.fencedlock.redlock.RedlockLocks;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.junit.RedisServersExtension;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Three real redis-server processes as independent Redlock masters; the data on PostgreSQL. */
class RedlockStaleHolderIT extends StaleHolderScenarios {
    @RegisterExtension
    static final RedisServersExtension redis = RedisServersExtension.nodes(3);

    private RedlockSettings settings() {
        // fresh servers: without this, the restart quarantine keeps them out for a lease time
        return RedlockSettings.builder()
                .nodes(redis.servers().uris())
                .restartQuarantine(Duration.ZERO)
                .build();
    }

    @Override
    LockClient newClient() {
        return RedlockLocks.create(settings());
    }

    @Override
    StaleHolders staleHolders() {
        return StaleHolders.redlock(settings());
    }

    @Override
    FencedStock newStock() {
        return new FencedStock(TestDatabase.Kind.POSTGRESQL);
    }
}
