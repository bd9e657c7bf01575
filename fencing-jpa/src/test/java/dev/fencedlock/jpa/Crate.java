package dev.fencedlock.jpa;

import jakarta.persistence.Embedded;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityListeners;
import jakarta.persistence.FetchType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.OneToMany;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import java.util.HashSet;
import java.util.Set;
import org.hibernate.annotations.OptimisticLock;

/**
 * A fenced entity whose element collection sits inside an embedded value, and which links
 * unfenced {@link Pen}s through a join column in their own table.
 */
@Entity
@Table(name = "crate")
@EntityListeners(FencingListener.class)
public class Crate {
    @Id
    private long id;

    private String label;

    @Embedded
    @OptimisticLock(excluded = true)
    private CrateContents contents = new CrateContents();

    @OneToMany(fetch = FetchType.EAGER)
    @JoinColumn(name = "crate_id")
    @OptimisticLock(excluded = true)
    private Set<Pen> pens = new HashSet<>();

    @Version
    private long version;

    @FencingToken
    private long fence;

    protected Crate() {}

    public Crate(long id, String label) {
        this.id = id;
        this.label = label;
    }

    public CrateContents contents() {
        return contents;
    }

    public Set<Pen> pens() {
        return pens;
    }
}
