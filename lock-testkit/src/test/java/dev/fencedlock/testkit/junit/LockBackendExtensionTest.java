package dev.fencedlock.testkit.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.testkit.junit.LockBackendExtension.Mode;
import org.junit.jupiter.api.Test;

/** How the extension chooses between containers and local servers. */
class LockBackendExtensionTest {
    private static final DockerEngine ABSENT = DockerEngine.at("unix:///nonexistent/docker.sock");

    @Test
    void autoUsesContainersOnlyWhenAnEngineAnswersAndTestcontainersIsPresent() {
        try (FakeDockerEngine fake = new FakeDockerEngine(FakeDockerEngine.PONG)) {
            DockerEngine answering = DockerEngine.at(fake.endpoint());
            assertThat(LockBackendExtension.choose("auto", answering, true)).isEqualTo(Mode.CONTAINERS);
            assertThat(LockBackendExtension.choose("auto", answering, false)).isEqualTo(Mode.LOCAL);
            assertThat(LockBackendExtension.choose("never", answering, true)).isEqualTo(Mode.LOCAL);
            assertThat(LockBackendExtension.choose(" ALWAYS ", answering, true)).isEqualTo(Mode.CONTAINERS);
        }
        assertThat(LockBackendExtension.choose("auto", ABSENT, true)).isEqualTo(Mode.LOCAL);
    }

    @Test
    void alwaysFailsSayingWhyWhenContainersCannotRun() {
        assertThatThrownBy(() -> LockBackendExtension.choose("always", ABSENT, true))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no Docker engine answers at unix:///nonexistent/docker.sock");
        assertThatThrownBy(() -> LockBackendExtension.choose("always", ABSENT, false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("org.testcontainers:testcontainers");
    }

    @Test
    void anUnknownSettingIsRefusedWithItsValue() {
        assertThatThrownBy(() -> LockBackendExtension.choose("docker", ABSENT, true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("fencedlock.test.containers must be auto, always or never, got 'docker'");
    }

    @Test
    void testcontainersIsFoundOnThisModulesTestClasspath() {
        assertThat(LockBackendExtension.testcontainersPresent()).isTrue();
    }

    @Test
    void noNodesIsRefused() {
        assertThatThrownBy(() -> LockBackendExtension.redlock(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("nodes must be at least 1, got 0");
    }
}
