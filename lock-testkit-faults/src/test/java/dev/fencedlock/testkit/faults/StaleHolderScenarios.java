package dev.fencedlock.testkit.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What an application's test of its own fence does with {@link StaleHolders}, on one backend: two
 * clients (two instances of the application), the first holder's lease taken away, the second
 * granted, and the first's fenced write refused while the second's is kept. Each backend's test
 * extends this with its servers.
 */
abstract class StaleHolderScenarios {
    /** Fixed, and long enough that no backend tells the old holder of its loss during a test. */
    static final Duration LEASE = Duration.ofSeconds(30);

    static final Duration WAIT = Duration.ofSeconds(5);

    private LockClient first;
    private LockClient second;
    private FencedStock stock;

    /** A new client of the backend under test; each call is another instance of the application. */
    abstract LockClient newClient();

    /** The helper for the backend under test. */
    abstract StaleHolders staleHolders();

    /** The database the application's data lives in, behind the fence. */
    abstract FencedStock newStock();

    @BeforeEach
    void clients() {
        first = newClient();
        second = newClient();
        stock = newStock();
    }

    @AfterEach
    void close() {
        try (LockClient a = first;
                LockClient b = second;
                FencedStock s = stock) {
            // closed in reverse order
        }
    }

    @Test
    void theOldHoldersFencedWriteIsRefusedAndTheNewerHoldersIsKept() throws Exception {
        String lockName = newLockName();
        try (Lease old = first.lock(lockName).acquire(WAIT, LEASE)) {
            staleHolders().takeAway(old);

            Optional<Lease> granted = second.lock(lockName).tryAcquire(WAIT, LEASE);
            assertThat(granted)
                    .as("the next holder is granted while the old lease lasts")
                    .isPresent();
            try (Lease newer = granted.get()) {
                assertThat(old.isValid())
                        .as("the old lease still believes it is valid")
                        .isTrue();
                assertThat(newer.token()).isGreaterThan(old.token());

                stock.write(newer, "sku-42", "newer");
                FencedStock.assertRefusedAsStale(() -> stock.write(old, "sku-42", "old"));
                stock.assertWrittenBy("sku-42", "newer");
            }
        }
    }

    @Test
    void aLeaseNoLongerValidIsRefusedAndNothingChanges() throws Exception {
        String lockName = newLockName();
        Lease closed = first.lock(lockName).acquire(WAIT, LEASE);
        closed.close();
        try (Lease current = second.lock(lockName).acquire(WAIT, LEASE)) {
            assertThatThrownBy(() -> staleHolders().takeAway(closed))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(lockName)
                    .hasMessageContaining("no longer valid");
            assertThat(current.isValid()).isTrue();
            stock.write(current, "sku-7", "current");
            stock.assertWrittenBy("sku-7", "current");
        }
    }

    @Test
    void aLeaseWhoseGrantIsAlreadyGoneIsNotHeldOnTheBackend() throws Exception {
        String lockName = newLockName();
        try (Lease old = first.lock(lockName).acquire(WAIT, LEASE)) {
            staleHolders().takeAway(old);
            assertThatThrownBy(() -> staleHolders().takeAway(old))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("No grant of lock '" + lockName + "' is held");
        }
    }

    private static String newLockName() {
        return "stale-" + UUID.randomUUID();
    }
}
