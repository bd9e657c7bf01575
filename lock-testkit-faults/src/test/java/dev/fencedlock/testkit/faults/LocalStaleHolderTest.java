package dev.fencedlock.testkit.faults;

import static org.assertj.core.api.Assertions.assertThatCode;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.testkit.db.TestDatabase;
import org.junit.jupiter.api.Test;

/** The in-process {@code local} backend; the data on embedded H2. */
class LocalStaleHolderTest extends StaleHolderScenarios {

    @Override
    LockClient newClient() {
        return LockClient.create(LockConfig.builder().backend("local").build());
    }

    @Override
    StaleHolders staleHolders() {
        return StaleHolders.local();
    }

    @Override
    FencedStock newStock() {
        return new FencedStock(TestDatabase.Kind.H2);
    }

    /** The local backend keeps no trace of a grant it forgot, so taking it away twice is not an error. */
    @Override
    @Test
    void aLeaseWhoseGrantIsAlreadyGoneIsNotHeldOnTheBackend() throws Exception {
        try (LockClient client = newClient();
                Lease old = client.lock("stale-local-twice").acquire(WAIT, LEASE)) {
            staleHolders().takeAway(old);
            assertThatCode(() -> staleHolders().takeAway(old)).doesNotThrowAnyException();
        }
    }
}
