package dev.fencedlock.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.integration.app.Ledger;
import dev.fencedlock.integration.app.RegistryApp;
import dev.fencedlock.jdbc.FencedTables;
import dev.fencedlock.spring.CurrentLease;
import dev.fencedlock.spring.FencedWriteRefusedException;
import dev.fencedlock.testkit.await.Await;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@link FencedLockRegistry} under the Spring Boot starter: work done by the thread holding a lock
 * is fenced by the lock's lease, and a holder whose TTL ran out is refused after the next holder
 * (another instance: a registry of its own) wrote.
 */
@SpringBootTest(
        classes = RegistryApp.class,
        properties = {"spring.datasource.url=jdbc:h2:mem:si-registry;DB_CLOSE_DELAY=-1", "fencedlock.backend=local"})
class RegistryFencingIT {
    @Autowired
    FencedLockRegistry registry;

    @Autowired
    Ledger ledger;

    @Autowired
    LockClient lockClient;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    DataSource dataSource;

    @BeforeEach
    void table() throws Exception {
        jdbc.execute("drop table if exists ledger");
        jdbc.execute("create table ledger (id int primary key, entry varchar(20))");
        jdbc.update("insert into ledger values (1, 'initial')");
        FencedTables.protect(dataSource, "ledger");
    }

    @Test
    void workUnderTheLockIsFencedAndWorkOutsideItIsRefused() {
        FencedDistributedLock lock = registry.obtain("ledger:" + System.nanoTime());
        lock.lock();
        try {
            assertThat(CurrentLease.get()).isEqualTo(lock.lease());
            ledger.record("locked");
        } finally {
            lock.unlock();
        }
        assertThat(CurrentLease.get()).isEmpty();
        assertThat(entry()).isEqualTo("locked");
        assertThatThrownBy(() -> ledger.record("unlocked")).hasMessageContaining("outside a fenced transaction");
        assertThat(entry()).isEqualTo("locked");
    }

    @Test
    void aHolderWhoseTtlRanOutIsRefusedAfterTheNextHolderWrote() throws Exception {
        String key = "ledger:" + System.nanoTime();
        FencedDistributedLock stale = registry.obtain(key);
        assertThat(stale.tryLock(Duration.ZERO, Duration.ofMillis(400))).isTrue();
        Lease old = stale.lease().orElseThrow();
        Await.until("the TTL ran out", Duration.ofSeconds(20), () -> !old.isValid());

        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            other.submit(() -> {
                        FencedDistributedLock next = new FencedLockRegistry(lockClient).obtain(key);
                        next.lock();
                        try {
                            ledger.record("newer");
                        } finally {
                            next.unlock();
                        }
                        return null;
                    })
                    .get(30, TimeUnit.SECONDS);
        } finally {
            other.shutdownNow();
        }
        assertThat(entry()).isEqualTo("newer");

        assertThatThrownBy(() -> ledger.record("stale")).isInstanceOf(FencedWriteRefusedException.class);
        assertThat(entry()).isEqualTo("newer");
        assertThatThrownBy(stale::unlock).isInstanceOf(ConcurrentModificationException.class);
    }

    /**
     * The row as another thread reads it: a thread holding a lock may not use the database outside
     * a transaction (the starter refuses the connection).
     */
    private String entry() {
        return CompletableFuture.supplyAsync(
                        () -> jdbc.queryForObject("select entry from ledger where id = 1", String.class))
                .join();
    }
}
