package dev.fencedlock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.jdbc.FencedTables;
import dev.fencedlock.shedlock.app.NightlyJob;
import dev.fencedlock.shedlock.app.ShedLockApp;
import dev.fencedlock.spring.FencedWriteRefusedException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.LockProvider;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A {@code @SchedulerLock} job in a Spring Boot application with the starter and this module: the
 * provider is configured on its own, and the job's transactional write is fenced by its run's lease.
 */
@SpringBootTest(
        classes = ShedLockApp.class,
        properties = {"spring.datasource.url=jdbc:h2:mem:shedlock-job;DB_CLOSE_DELAY=-1", "fencedlock.backend=local"})
class ShedLockJobFencingIT {
    @Autowired
    NightlyJob job;

    @Autowired
    LockProvider provider;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    DataSource dataSource;

    @BeforeEach
    void table() throws Exception {
        jdbc.execute("drop table if exists job_result");
        jdbc.execute("create table job_result (id int primary key, result_value varchar(20))");
        jdbc.update("insert into job_result values (1, 'initial')");
        FencedTables.protect(dataSource, "job_result");
    }

    @Test
    void aWriteOutsideAnyRunIsRefusedByTheDatabase() {
        assertThatThrownBy(() -> jdbc.update("update job_result set result_value = 'unfenced' where id = 1"))
                .hasMessageContaining("outside a fenced transaction");
        assertThat(value()).isEqualTo("initial");
    }

    @Test
    void theProviderIsFencedlocks() {
        assertThat(provider).isInstanceOf(FencedLockProvider.class);
    }

    @Test
    void aRunWritesUnderItsLease() throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        go.countDown();
        job.run("fresh", go);
        assertThat(value()).isEqualTo("fresh");
    }

    @Test
    void aRunPausedPastLockAtMostForIsRefusedAfterTheNextRunWrote() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            CountDownLatch pausedGo = new CountDownLatch(1);
            Future<?> paused = threads.submit(() -> {
                job.run("stale", pausedGo);
                return null;
            });
            Thread.sleep(1300);
            CountDownLatch nextGo = new CountDownLatch(1);
            nextGo.countDown();
            threads.submit(() -> {
                        job.run("newer", nextGo);
                        return null;
                    })
                    .get(30, TimeUnit.SECONDS);
            assertThat(value()).isEqualTo("newer");

            pausedGo.countDown();
            assertThatThrownBy(() -> paused.get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(FencedWriteRefusedException.class);
            assertThat(value()).as("the stale run's write did not land").isEqualTo("newer");
        } finally {
            threads.shutdownNow();
        }
    }

    private String value() {
        return jdbc.queryForObject("select result_value from job_result where id = 1", String.class);
    }
}
