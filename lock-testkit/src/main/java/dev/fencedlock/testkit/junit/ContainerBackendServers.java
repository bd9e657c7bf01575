package dev.fencedlock.testkit.junit;

import dev.fencedlock.testkit.await.Await;
import dev.fencedlock.testkit.redis.RedisInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * Servers in Docker containers through Testcontainers. Only this class touches Testcontainers, so
 * the rest of the test kit runs without it on the classpath.
 */
final class ContainerBackendServers {
    static final DockerImageName REDIS = DockerImageName.parse("redis:7.4-alpine");
    static final DockerImageName ZOOKEEPER = DockerImageName.parse("zookeeper:3.9");

    private static final Duration STARTUP = Duration.ofSeconds(120);

    private ContainerBackendServers() {}

    static BackendServers redis(int nodes) {
        List<GenericContainer<?>> containers = new ArrayList<>();
        try {
            for (int i = 0; i < nodes; i++) {
                GenericContainer<?> container = new GenericContainer<>(REDIS)
                        .withExposedPorts(6379)
                        .withCommand("redis-server", "--save", "", "--appendonly", "no");
                containers.add(container);
                container.start();
            }
            for (GenericContainer<?> container : containers) {
                long needed = RedisInfo.uptimeNeededSeconds(BackendServers.REDLOCK_TEST_LEASE);
                Await.until(
                        container.getContainerName() + " up for " + needed + " s",
                        STARTUP,
                        () -> uptimeSeconds(container) >= needed);
            }
        } catch (InterruptedException e) {
            containers.forEach(GenericContainer::stop);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting Redis containers", e);
        } catch (RuntimeException | Error e) {
            containers.forEach(GenericContainer::stop);
            throw e;
        }
        String uris = containers.stream()
                .map(c -> "redis://" + c.getHost() + ":" + c.getMappedPort(6379))
                .collect(Collectors.joining(","));
        return new BackendServers(
                BackendServers.redlock(uris),
                nodes + " Redis containers (" + REDIS + ")",
                () -> containers.forEach(GenericContainer::stop));
    }

    /** The container's uptime, or -1 while redis-cli cannot tell. */
    private static long uptimeSeconds(GenericContainer<?> container) {
        try {
            return RedisInfo.uptimeSeconds(
                    container.execInContainer("redis-cli", "INFO", "server").getStdout());
        } catch (Exception e) {
            return -1;
        }
    }

    static BackendServers zookeeper() {
        GenericContainer<?> container = new GenericContainer<>(ZOOKEEPER).withExposedPorts(2181);
        container.start();
        String connect = container.getHost() + ":" + container.getMappedPort(2181);
        return new BackendServers(
                BackendServers.zookeeper(connect), "a ZooKeeper container (" + ZOOKEEPER + ")", () -> container.stop());
    }
}
