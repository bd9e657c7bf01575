package dev.fencedlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.Lease;
import dev.fencedlock.spring.app.ServerSessions;
import dev.fencedlock.spring.app.StalledHolders;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

@TestPropertySource(properties = "test.database=POSTGRESQL")
class FencedInventoryPostgresIT extends AbstractFencedInventoryIT {

    @Autowired
    StalledHolders stalled;

    @Autowired
    PlatformTransactionManager transactionManager;

    /**
     * A holder stalled past its lease plus the guard's idle grace finds its transaction ended by
     * PostgreSQL (25P03, then a closed connection): the caller gets the documented refusal, with the
     * database's error in its cause chain, whether the write was flushed before the stall, at
     * commit, or after it, through JPA or {@code JdbcTemplate}.
     */
    @Test
    void aHolderWhoseTransactionTheServerEndedGetsTheRefusal() throws Exception {
        inventory.restock("sku-ended", 10);
        counters.write("c-ended", 5);

        assertEndedRefusal(() -> stalled.orderThenStall("sku-ended"), "inventory:sku-ended");
        assertEndedRefusal(() -> stalled.stallThenOrder("sku-ended"), "inventory:sku-ended", false);
        assertEndedRefusal(() -> stalled.countThenStall("c-ended"), "counter:c-ended");
        assertEndedRefusal(() -> stalled.stallThenCount("c-ended"), "counter:c-ended");

        assertThat(items.findById("sku-ended").orElseThrow().quantity()).isEqualTo(10);
        assertThat(orders.countBySku("sku-ended")).isZero();
        assertThat(counters.read("c-ended")).isEqualTo(5);
        assertThat(inventory.order("sku-ended", "next"))
                .as("the lock was released")
                .isTrue();
    }

    /**
     * The same through {@link CurrentLease#bind} and a plain {@code TransactionTemplate}, the path of
     * the ShedLock and Spring Integration adapters: no {@code @Locked} around the transaction.
     */
    @Test
    void aBoundLeaseWhoseTransactionTheServerEndedGetsTheRefusal() throws Exception {
        counters.write("c-bound", 5);
        TransactionTemplate transactions = new TransactionTemplate(transactionManager);
        try (Lease lease = client.lock("counter:c-bound").acquire(Duration.ofSeconds(5), Duration.ofSeconds(1));
                CurrentLease.Binding binding = CurrentLease.bind(lease)) {
            assertEndedRefusal(
                    () -> transactions.executeWithoutResult(status -> {
                        counters.write("c-bound", 6);
                        awaitEnded();
                    }),
                    "counter:c-bound");
        }
        assertThat(counters.read("c-bound")).isEqualTo(5);
    }

    /**
     * Under a JPA transaction manager fencing-jpa's guard and the starter's are one guard: the fence
     * row is written once per fenced transaction (counted by a row trigger on the fence table, in a
     * transaction-local setting), whether the transaction's first statement is JPA's or {@code
     * JdbcTemplate}'s, through {@code FencedTransactions} and {@code @Locked} alike: the starter's
     * guard does not run again behind fencing-jpa's, which would update the row twice.
     */
    @Test
    void aFencedJpaTransactionWritesTheFenceRowOnce() throws Exception {
        inventory.restock("sku-once", 5);
        jdbc.execute("create function count_fence_writes() returns trigger language plpgsql as $$ begin"
                + " perform set_config('fencedlock_test.fence_writes',"
                + " (coalesce(nullif(current_setting('fencedlock_test.fence_writes', true), ''), '0')::int + 1)::text,"
                + " true); return new; end $$");
        jdbc.execute("create trigger count_fence_writes before update on fencedlock_fence"
                + " for each row execute function count_fence_writes()");
        String fenceWrites = "select current_setting('fencedlock_test.fence_writes', true)";
        try {
            String jpaFirst = fencedTransactions.run("inventory:sku-once", Duration.ofSeconds(5), status -> {
                items.findById("sku-once").orElseThrow();
                return jdbc.queryForObject(fenceWrites, String.class);
            });
            String jdbcFirst = fencedTransactions.run("inventory:sku-once", Duration.ofSeconds(5), status -> {
                String writes = jdbc.queryForObject(fenceWrites, String.class);
                items.findById("sku-once").orElseThrow();
                return writes;
            });
            long locked = inventory.fenceRowUpdatesWhileOrdering("sku-once", fenceWrites);

            assertThat(jpaFirst).as("JPA's statement first").isEqualTo("1");
            assertThat(jdbcFirst).as("JdbcTemplate's statement first").isEqualTo("1");
            assertThat(locked).as("@Locked @Transactional").isEqualTo(1);
            assertThat(items.findById("sku-once").orElseThrow().quantity()).isEqualTo(4);
        } finally {
            jdbc.execute("drop trigger count_fence_writes on fencedlock_fence");
            jdbc.execute("drop function count_fence_writes()");
        }
    }

    private void awaitEnded() {
        try {
            ServerSessions.awaitEnded(jdbc, dataSource);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void assertEndedRefusal(ThrowingCallable call, String lockName) {
        assertEndedRefusal(call, lockName, true);
    }

    /**
     * @param databaseErrorInChain whether an {@code SQLException} must be in the cause chain: a JPA
     *     read after the stall leaves only the rollback's failure, as Hibernate closed its side of
     *     the connection (Spring logs the read's failure as "overridden by rollback exception")
     */
    static void assertEndedRefusal(ThrowingCallable call, String lockName, boolean databaseErrorInChain) {
        assertThatThrownBy(call).isInstanceOfSatisfying(FencedWriteRefusedException.class, refused -> {
            assertThat(refused.lockName()).isEqualTo(lockName);
            assertThat(refused.newerToken()).as("refused for its own expiry").isEmpty();
            assertThat(refused).hasMessageContaining("ended by the database").hasCauseInstanceOf(Exception.class);
            if (databaseErrorInChain) {
                assertThat(Stream.iterate((Throwable) refused, Objects::nonNull, Throwable::getCause))
                        .as("the database's error is in the cause chain")
                        .anyMatch(SQLException.class::isInstance);
            }
        });
    }
}
