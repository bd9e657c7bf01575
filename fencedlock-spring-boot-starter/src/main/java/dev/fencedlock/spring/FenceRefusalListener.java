package dev.fencedlock.spring;

/**
 * Told about each fenced transaction that was refused, after its rollback; every bean of this type
 * is. For metrics and logs: must return quickly, and what it throws is not caught.
 */
@FunctionalInterface
public interface FenceRefusalListener {
    void refused(FencedWriteRefusedException refusal);
}
