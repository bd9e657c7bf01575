package dev.fencedlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.jdbc.FencedTables;
import dev.fencedlock.spring.app.ServerSessions;
import dev.fencedlock.testkit.await.Await;
import dev.fencedlock.testkit.db.TestDatabase;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The starter on MariaDB:
 *
 * <ul>
 *   <li>a table protected with {@link FencedTables#protect} refuses, in the database, a write
 *       outside a fenced transaction and takes the one of a {@code @Locked @Transactional} method;
 *   <li>a {@code @Locked} method without a transaction cannot write in autocommit, whether the table
 *       is protected or not: the starter refuses its connection, so a holder stalled past its lease
 *       while a newer holder writes never lands its write;
 *   <li>the starter bounds how long a fenced transaction may sit idle ({@code
 *       idle_transaction_timeout}, the lease's remaining time plus the grace), so the server closes
 *       the connection of a holder stalled past it, which frees the fence row; the holder, when it
 *       wakes, gets the documented {@link FencedWriteRefusedException}, the database's error in its
 *       cause chain, and a pooled connection afterwards carries no bound.
 * </ul>
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class MariaDbStarterIT {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataSourceTransactionManagerAutoConfiguration.class,
                    JdbcTemplateAutoConfiguration.class,
                    TransactionAutoConfiguration.class,
                    FencedLockAutoConfiguration.class))
            .withUserConfiguration(App.class)
            .withPropertyValues("fencedlock.backend=local", "fencedlock.initialize-schema=always");

    @Test
    void staleWriteOfALockedMethodWithoutTransactionNeverLands() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            FencedTransactions transactions = context.getBean(FencedTransactions.class);
            Writer writer = context.getBean(Writer.class);
            jdbc.update("create table starter_counter (name varchar(64) primary key, amount bigint not null)");
            jdbc.update("insert into starter_counter values ('c', 1)");
            CountDownLatch newerWrote = new CountDownLatch(1);
            ExecutorService stale = Executors.newSingleThreadExecutor();
            try {
                Future<?> staleWrite = stale.submit(() -> {
                    writer.writeAfterLeaseRanOut(99, newerWrote);
                    return null;
                });
                transactions.run("starter:c", Duration.ofSeconds(30), status -> {
                    jdbc.update("update starter_counter set amount = 10 where name = 'c'");
                    return null;
                });
                newerWrote.countDown();
                assertThatThrownBy(() -> staleWrite.get(30, TimeUnit.SECONDS))
                        .rootCause()
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("starter:c")
                        .hasMessageContaining("outside any transaction");
            } finally {
                stale.shutdownNow();
            }
            assertThat(jdbc.queryForObject("select amount from starter_counter where name = 'c'", Long.class))
                    .as("the newer holder's write stands")
                    .isEqualTo(10);
        });
    }

    @Test
    void aProtectedTableRefusesAnUnfencedWriteAndTakesALockedOne() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            Writer writer = context.getBean(Writer.class);
            jdbc.update("create table stalled_counter (name varchar(64) primary key, amount bigint not null)");
            jdbc.update("insert into stalled_counter values ('c', 1)");
            FencedTables.protect(context.getBean(DataSource.class), "stalled_counter");

            assertThatThrownBy(() -> jdbc.update("update stalled_counter set amount = 2 where name = 'c'"))
                    .as("refused by the database")
                    .hasMessageContaining("stalled_counter");
            writer.write(3);

            assertThat(jdbc.queryForObject("select amount from stalled_counter where name = 'c'", Long.class))
                    .isEqualTo(3);
        });
    }

    @Test
    void aHolderWhoseConnectionTheServerClosedGetsTheRefusal() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            Writer writer = context.getBean(Writer.class);
            jdbc.update("create table stalled_counter (name varchar(64) primary key, amount bigint not null)");
            jdbc.update("insert into stalled_counter values ('c', 1)");

            assertEndedRefusal(writer::writeThenStall);
            assertEndedRefusal(writer::stallThenWrite);

            TransactionTemplate transactions =
                    new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            try (Lease lease = context.getBean(LockClient.class)
                            .lock("stalled:c")
                            .acquire(Duration.ofSeconds(5), Duration.ofSeconds(1));
                    CurrentLease.Binding binding = CurrentLease.bind(lease)) {
                assertEndedRefusal(() -> transactions.executeWithoutResult(status -> {
                    jdbc.update("update stalled_counter set amount = 77 where name = 'c'");
                    writer.awaitEnded();
                }));
            }

            assertThat(jdbc.queryForObject("select amount from stalled_counter where name = 'c'", Long.class))
                    .as("nothing of the stalled holders landed")
                    .isEqualTo(1);
            writer.write(5);
            assertThat(jdbc.queryForObject("select @@session.idle_transaction_timeout", Long.class))
                    .as("a pooled connection after a fenced transaction has no idle bound left")
                    .isZero();
        });
    }

    private static void assertEndedRefusal(ThrowingCallable call) {
        FencedInventoryPostgresIT.assertEndedRefusal(call, "stalled:c", true);
    }

    @Configuration(proxyBeanMethods = false)
    static class App {
        @Bean(destroyMethod = "close")
        TestDatabase testDatabase() {
            return TestDatabase.create(TestDatabase.Kind.MARIADB, "starter", 4);
        }

        @Bean
        DataSource dataSource(TestDatabase database) {
            return database.dataSource();
        }

        @Bean
        Writer writer() {
            return new Writer();
        }
    }

    /**
     * A locked method with no transaction of its own, and holders on a fixed lease of one second
     * that stall until the server ended their transaction.
     */
    static class Writer {
        @Autowired
        JdbcTemplate jdbc;

        @Autowired
        DataSource dataSource;

        @Locked(value = "'starter:c'", leaseTime = "300ms")
        public void writeAfterLeaseRanOut(long value, CountDownLatch newerWrote) throws InterruptedException {
            var lease = CurrentLease.get().orElseThrow();
            Await.until("lease expired", Duration.ofSeconds(30), () -> !lease.isValid());
            newerWrote.await();
            jdbc.update("update starter_counter set amount = ? where name = 'c'", value);
        }

        @Locked(value = "'stalled:c'", leaseTime = "1s")
        @Transactional
        public void writeThenStall() {
            jdbc.update("update stalled_counter set amount = 99 where name = 'c'");
            awaitEnded();
        }

        @Locked(value = "'stalled:c'", leaseTime = "1s")
        @Transactional
        public void stallThenWrite() {
            awaitEnded();
            jdbc.update("update stalled_counter set amount = 98 where name = 'c'");
        }

        @Locked(value = "'stalled:c'")
        @Transactional
        public void write(long value) {
            jdbc.update("update stalled_counter set amount = ? where name = 'c'", value);
        }

        void awaitEnded() {
            try {
                ServerSessions.awaitEnded(jdbc, dataSource);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
