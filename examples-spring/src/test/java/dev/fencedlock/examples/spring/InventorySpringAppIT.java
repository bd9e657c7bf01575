package dev.fencedlock.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The example's run, small, on its default backend (an in-process ZooKeeper): every invariant of
 * the summary holds, the stalled write is refused, and the database itself refuses the write of an
 * instance holding the lock at the same time as another.
 */
@SpringBootTest(
        properties = {
            "inventory.workers=4",
            "inventory.skus=2",
            "inventory.stock=20",
            "spring.datasource.url=jdbc:h2:mem:inventory-it;DB_CLOSE_DELAY=-1"
        })
@ExtendWith(OutputCaptureExtension.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class InventorySpringAppIT {
    private static TestingServer zookeeper;

    @DynamicPropertySource
    static void zookeeper(DynamicPropertyRegistry registry) throws Exception {
        zookeeper = new TestingServer(true);
        registry.add("fencedlock.backend", () -> "zookeeper");
        registry.add("fencedlock.zookeeper.connect", zookeeper::getConnectString);
    }

    @AfterAll
    static void stopZookeeper() throws Exception {
        zookeeper.close();
    }

    @Autowired
    InventoryRun run;

    @Test
    void everyInvariantHoldsAndTheDatabaseRefusesTheOverlappingWrite(CapturedOutput output) throws Exception {
        assertThat(run.call()).as(output.getOut()).isZero();
        assertThat(output.getOut())
                .contains("writes refused by the database's fence condition 1")
                .contains("[ok] the write of an instance still on the old backend")
                .contains("[ok] the stalled worker's late write was refused");
    }
}
