package dev.fencedlock.examples.spring;

import org.apache.curator.test.TestingServer;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The inventory example on Spring Boot: workers sell the last units of a few SKUs through a
 * {@code @Locked @Transactional} service, one worker stalls past its lease inside its transaction,
 * and the run ends with the summary of the plain example, exiting non-zero if an invariant fails.
 *
 * <p>With no {@code fencedlock.backend} anywhere (properties, command line, environment), an
 * in-process ZooKeeper is started and used, so that one command shows it working.
 */
@SpringBootApplication
public class InventorySpringApp {

    public static void main(String[] args) throws Exception {
        TestingServer zookeeper = null;
        if (!backendConfigured(args)) {
            zookeeper = new TestingServer(true);
            System.setProperty("fencedlock.backend", "zookeeper");
            System.setProperty("fencedlock.zookeeper.connect", zookeeper.getConnectString());
        }
        int exitCode;
        try (ConfigurableApplicationContext context = SpringApplication.run(InventorySpringApp.class, args)) {
            exitCode = context.getBean(InventoryRun.class).call();
        } finally {
            if (zookeeper != null) {
                zookeeper.close();
            }
        }
        System.exit(exitCode);
    }

    private static boolean backendConfigured(String[] args) {
        for (String arg : args) {
            if (arg.startsWith("--fencedlock.backend=")) {
                return true;
            }
        }
        return System.getProperty("fencedlock.backend") != null || System.getenv("FENCEDLOCK_BACKEND") != null;
    }
}
