package dev.fencedlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.FenceRefusedException.Reason;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.jdbc.JdbcFencing;
import dev.fencedlock.jpa.Fencing;
import dev.fencedlock.jpa.FencingScope;
import dev.fencedlock.jpa.StaleFencingTokenException;
import dev.fencedlock.spi.TokenOrder;
import dev.fencedlock.spring.app.InventoryApplication;
import dev.fencedlock.spring.app.Item;
import dev.fencedlock.spring.app.Items;
import dev.fencedlock.testkit.await.Await;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.OptimisticLockException;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.stereotype.Service;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Transactional;

/**
 * A refused fenced write surfaces one core type, {@link FenceRefusedException}, whichever adapter
 * ran the transaction: thrown by {@link JdbcFencing}, the cause of fencing-jpa's {@code
 * StaleFencingTokenException} ({@link Fencing#bind} and an {@code EntityManager}), the cause of the
 * starter's {@link FencedWriteRefusedException} ({@code @Locked}), each with the lock's name, the
 * refused lease's token and the newer token the fence row holds. A lease that is no longer valid
 * when its transaction begins is refused there, before the method body runs. Subclasses choose the
 * database.
 */
@SpringBootTest(classes = {InventoryApplication.class, FenceRefusalContract.Writers.class})
@Timeout(value = 2, unit = TimeUnit.MINUTES)
abstract class FenceRefusalContract {
    /** A token above every token a lock of this test's run is granted: the token order's floor an hour ahead. */
    private static final long NEWER =
            TokenOrder.floor(System.currentTimeMillis() + Duration.ofHours(1).toMillis());

    @Autowired
    LockClient client;

    @Autowired
    DataSource dataSource;

    @Autowired
    EntityManagerFactory entityManagers;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    Items items;

    @Autowired
    Writers writers;

    @Autowired
    ApplicationContext context;

    @Autowired
    FencedTransactions fencedTransactions;

    @Test
    void aStaleWriteSurfacesTheSameCoreRefusalThroughJdbcJpaAndLocked() throws Exception {
        String sku = "refusal-" + UUID.randomUUID();
        String lockName = "inventory:" + sku;
        writers.restock(sku);
        writers.bodyRan = false;
        long before;
        FenceRefusedException throughJdbc;
        FenceRefusedException throughJpa;
        try (Lease older = client.lock(lockName).acquire(Duration.ofSeconds(10))) {
            before = older.token();
            registerNewerHolder(lockName);

            Throwable jdbcFailure = catchThrowable(() -> JdbcFencing.inTransaction(dataSource, older, connection -> {
                try (PreparedStatement update =
                        connection.prepareStatement("update inventory set quantity = 0 where sku = ?")) {
                    update.setString(1, sku);
                    return update.executeUpdate();
                }
            }));
            assertThat(jdbcFailure).isInstanceOf(FenceRefusedException.class);
            throughJdbc = (FenceRefusedException) jdbcFailure;

            Throwable jpaFailure = catchThrowable(() -> writeThroughJpa(older, sku));
            StaleFencingTokenException jpaRefusal =
                    StaleFencingTokenException.findIn(jpaFailure).orElseThrow();
            assertThat(jpaRefusal).isInstanceOf(OptimisticLockException.class);
            assertThat(jpaRefusal.getCause()).isInstanceOf(FenceRefusedException.class);
            throughJpa = jpaRefusal.refusal();

            assertThat(throughJdbc.token()).isEqualTo(older.token());
            assertThat(throughJpa.token()).isEqualTo(older.token());
        }

        Throwable lockedFailure = catchThrowable(() -> writers.order(lockName, sku));
        long after;
        try (Lease later = client.lock(lockName).acquire(Duration.ofSeconds(10))) {
            after = later.token();
        }

        assertThat(lockedFailure).isInstanceOf(FencedWriteRefusedException.class);
        assertThat(lockedFailure.getCause()).isInstanceOf(FenceRefusedException.class);
        FenceRefusedException throughLocked = (FenceRefusedException) lockedFailure.getCause();
        assertThat(writers.bodyRan).as("the @Locked body never ran").isFalse();
        assertThat(((FencedWriteRefusedException) lockedFailure).refusal()).isSameAs(throughLocked);
        assertThat(throughLocked.token()).as("the @Locked call's own lease").isBetween(before + 1, after - 1);

        for (FenceRefusedException refusal : new FenceRefusedException[] {throughJdbc, throughJpa, throughLocked}) {
            assertThat(refusal.reason()).isEqualTo(Reason.NEWER_TOKEN_REGISTERED);
            assertThat(refusal.lockName()).isEqualTo(lockName);
            assertThat(refusal.newerToken()).hasValue(NEWER);
            assertThat(refusal)
                    .hasMessageContaining("'" + lockName + "'")
                    .hasMessageContaining(Long.toString(refusal.token()))
                    .hasMessageContaining(Long.toString(NEWER))
                    .hasMessageContaining(Reason.NEWER_TOKEN_REGISTERED.description());
        }
        assertThat(items.findById(sku).orElseThrow().quantity())
                .as("nothing of the refused writes kept")
                .isEqualTo(10);
        assertThat(items.findById(sku + "-jpa")).isEmpty();
        assertThat(items.findById(sku + "-locked")).isEmpty();
    }

    /**
     * Under a transaction manager of the application's (JPA here), a lease that ran out between the
     * lock's acquisition and the transaction's begin is refused at begin: the transactional method's
     * body never runs, and the refusal is the core one, the lease-not-valid reason, as the cause of
     * the Spring exception.
     */
    @Test
    void aLeaseExpiredWhenTheTransactionBeginsIsRefusedBeforeTheBodyRuns() throws Exception {
        String sku = "expired-" + UUID.randomUUID();
        writers.restock(sku);

        writers.bodyRan = false;

        Throwable failure = catchThrowable(() -> writers.orderAfterTheLeaseRanOut("inventory:" + sku, sku, writers));

        assertThat(writers.bodyRan).as("the transactional body never ran").isFalse();
        assertRefusedAtBegin(failure, "inventory:" + sku);
        assertThat(items.findById(sku).orElseThrow().quantity()).isEqualTo(10);
    }

    /**
     * The same under a plain JDBC transaction manager, where the starter's own guard, not
     * fencing-jpa's, begins the fenced transaction.
     */
    @Test
    void aLeaseExpiredWhenAJdbcTransactionBeginsIsRefusedBeforeTheBodyRuns() throws Exception {
        String sku = "expired-jdbc-" + UUID.randomUUID();
        writers.restock(sku);
        PlatformTransactionManager jdbcTransactions =
                (PlatformTransactionManager) context.getAutowireCapableBeanFactory()
                        .initializeBean(new DataSourceTransactionManager(dataSource), "jdbc");
        FencedTransactions fenced = fencedTransactions.withTransactionManager(jdbcTransactions);
        AtomicBoolean bodyRan = new AtomicBoolean();

        Throwable failure;
        try (Lease lease = client.lock("inventory:" + sku).acquire(Duration.ofSeconds(10), Duration.ofMillis(200))) {
            awaitExpiry(lease);
            failure = catchThrowable(() -> fenced.run(lease, status -> {
                bodyRan.set(true);
                return jdbc.update("update inventory set quantity = 0 where sku = ?", sku);
            }));
        }

        assertThat(bodyRan).as("the transactional body never ran").isFalse();
        assertRefusedAtBegin(failure, "inventory:" + sku);
        assertThat(items.findById(sku).orElseThrow().quantity()).isEqualTo(10);
    }

    private static void assertRefusedAtBegin(Throwable failure, String lockName) {
        assertThat(failure).isInstanceOf(FencedWriteRefusedException.class);
        assertThat(failure.getCause()).isInstanceOf(FenceRefusedException.class);
        FenceRefusedException refusal = (FenceRefusedException) failure.getCause();
        assertThat(refusal.reason()).isEqualTo(Reason.LEASE_NOT_VALID);
        assertThat(refusal.lockName()).isEqualTo(lockName);
        assertThat(refusal.newerToken()).isEmpty();
        assertThat(refusal).hasMessageContaining("when the transaction began");
    }

    static void awaitExpiry(Lease lease) throws InterruptedException {
        Await.until("lease " + lease.token() + " expired", Duration.ofSeconds(30), () -> !lease.isValid());
    }

    private void registerNewerHolder(String lockName) {
        assertThat(jdbc.update("update fencedlock_fence set token = ? where lock_name = ?", NEWER, lockName))
                .isEqualTo(1);
    }

    private void writeThroughJpa(Lease lease, String sku) {
        EntityManager em = entityManagers.createEntityManager();
        try (FencingScope scope = Fencing.bind(lease)) {
            em.getTransaction().begin();
            em.find(Item.class, sku);
            em.persist(new Item(sku + "-jpa", 1));
            em.getTransaction().commit();
        } finally {
            if (em.getTransaction().isActive()) {
                em.getTransaction().rollback();
            }
            em.close();
        }
    }

    /** Locked writers whose bodies record that they ran. */
    @Service
    public static class Writers {
        private final Items items;
        volatile boolean bodyRan;

        public Writers(Items items) {
            this.items = items;
        }

        @Locked("'inventory:' + #sku")
        @Transactional
        public void restock(String sku) {
            items.save(new Item(sku, 10));
        }

        @Locked("#lockName")
        @Transactional
        public void order(String lockName, String sku) {
            bodyRan = true;
            items.findById(sku).orElseThrow();
            items.save(new Item(sku + "-locked", 1));
        }

        /** On a short fixed lease: waits until it ran out, then begins {@code self}'s {@link #orderInTransaction}. */
        @Locked(value = "#lockName", leaseTime = "200ms")
        public void orderAfterTheLeaseRanOut(String lockName, String sku, Writers self) throws InterruptedException {
            awaitExpiry(CurrentLease.get().orElseThrow());
            self.orderInTransaction(sku);
        }

        @Transactional
        public void orderInTransaction(String sku) {
            bodyRan = true;
            items.findById(sku).orElseThrow();
            items.save(new Item(sku + "-locked", 1));
        }
    }
}
