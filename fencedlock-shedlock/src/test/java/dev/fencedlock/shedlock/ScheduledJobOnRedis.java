package dev.fencedlock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.shedlock.scheduled.ReportJob;
import dev.fencedlock.shedlock.scheduled.ReportJob.Run;
import dev.fencedlock.shedlock.scheduled.ScheduledJobApp;
import dev.fencedlock.spi.DurationFormat;
import dev.fencedlock.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@link ScheduledJobApp}'s {@code @Scheduled} ShedLock job on the redlock backend over one {@code
 * redis-server} of the test class's own, without persistence, on the default restart quarantine and
 * a 3 s lease time. The context is closed after the class, so its ticks stop with the server.
 */
@SpringBootTest(
        classes = ScheduledJobApp.class,
        properties = {"spring.datasource.url=jdbc:h2:mem:shedlock-scheduled", "fencedlock.backend=redlock"})
@DirtiesContext
abstract class ScheduledJobOnRedis {
    static final Duration LEASE_TIME = Duration.ofSeconds(3);

    static RedisServerProcess redis;

    @Autowired
    ReportJob job;

    @BeforeAll
    static void startRedis() {
        redis = RedisServerProcess.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @DynamicPropertySource
    static void redlock(DynamicPropertyRegistry registry) {
        registry.add("fencedlock.redlock.nodes", () -> redis.uri());
        registry.add("fencedlock.lease-time", () -> DurationFormat.format(LEASE_TIME));
    }

    /** The first run from now on: the node counts and the job's lock is free. */
    Run awaitRun() throws InterruptedException {
        Run run = job.nextRunAfter(System.nanoTime(), LEASE_TIME.plusSeconds(20));
        assertThat(run).as("a run of the job").isNotNull();
        return run;
    }

    static void sleepUntil(long nanos) throws InterruptedException {
        long left = nanos - System.nanoTime();
        if (left > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }
}
