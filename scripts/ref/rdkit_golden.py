#!/usr/bin/python3
"""Golden values for core/chem from RDKit (python3-rdkit, rdkit-data).

Run: /usr/bin/python3 scripts/ref/rdkit_golden.py > core/chem/testdata/rdkit_golden.json.gz
     /usr/bin/python3 scripts/ref/rdkit_golden.py --counts > core/chem/testdata/rdkit_morgan_counts.json.gz

For each molecule of the rdkit-data sets (read from /usr/share/RDKit, or $RDKIT_DATA) it
records, by set and line index (the SMILES themselves are not stored, except for bzr whose
source is an SDF): per-atom features, per-bond features, descriptors, Morgan radius-2
2048-bit on-bits, the Bemis-Murcko scaffold and RDKit's canonical SMILES.
Molecules RDKit cannot parse are recorded as null. With --counts it writes instead, for the
ChEMBL set, the unfolded radius-2 Morgan count fingerprints (environment id -> count).
"""
import csv, gzip, json, os, sys
from rdkit import Chem, RDLogger
from rdkit.Chem import rdMolDescriptors as D, Descriptors, AllChem
from rdkit.Chem.Scaffolds import MurckoScaffold

RDLogger.DisableLog('rdApp.*')
root = os.environ.get('RDKIT_DATA', '/usr/share/RDKit')


def sets():
    out = {}
    with open(os.path.join(root, 'Data/NCI/first_5K.smi')) as f:
        out['nci'] = [l.split('\t')[0].strip() for l in f if l.strip()]
    with open(os.path.join(root, 'Data/Pains/test_data/wehi_mols.csv')) as f:
        out['wehi'] = [r[0] for r in csv.reader(f) if r]
    with open(os.path.join(root, 'Contrib/FreeWilson/data/CHEMBL2321810.smi')) as f:
        out['chembl'] = [l.split()[0] for l in f if l.strip()]
    sup = Chem.SDMolSupplier(os.path.join(root, 'Projects/DbCLI/testData/bzr.sdf'))
    out['bzr'] = [Chem.MolToSmiles(m) for m in sup if m is not None]
    return out


def mol_record(m):
    atoms = []
    for a in m.GetAtoms():
        atoms.append('%d.%d.%d.%d.%d.%d.%d' % (
            a.GetAtomicNum(), a.GetDegree(), a.GetFormalCharge(), a.GetTotalNumHs(),
            int(a.GetIsAromatic()), int(a.GetHybridization()), int(a.IsInRing())))
    bonds = []
    for b in m.GetBonds():
        i, j = sorted((b.GetBeginAtomIdx(), b.GetEndAtomIdx()))
        bonds.append((i, j, '%d-%d.%d.%d.%d' % (i, j, int(b.GetBondType()), int(b.GetIsConjugated()),
                                               int(b.IsInRing()))))
    bonds.sort()
    fp = AllChem.GetMorganFingerprintAsBitVect(m, 2, nBits=2048)
    scaf = MurckoScaffold.GetScaffoldForMol(m)
    return {
        'a': ' '.join(atoms),
        'b': ' '.join(x[2] for x in bonds),
        'mw': round(Descriptors.MolWt(m), 4),
        'tpsa': round(D.CalcTPSA(m), 4),
        'logp': round(Descriptors.MolLogP(m), 4),
        'hbd': D.CalcNumHBD(m), 'hba': D.CalcNumHBA(m),
        'rot': D.CalcNumRotatableBonds(m),
        'rings': D.CalcNumRings(m), 'arom': D.CalcNumAromaticRings(m),
        'm2': list(fp.GetOnBits()),
        'scaf': Chem.MolToSmiles(scaf), 'scafn': scaf.GetNumAtoms(),
        'can': Chem.MolToSmiles(m),
    }


def counts():
    out = []
    for s in sets()['chembl']:
        m = Chem.MolFromSmiles(s)
        out.append(None if m is None else sorted(AllChem.GetMorganFingerprint(m, 2).GetNonzeroElements().items()))
    with gzip.GzipFile(fileobj=sys.stdout.buffer, mode='wb', mtime=0) as f:
        f.write(json.dumps({'rdkit': __import__('rdkit').__version__, 'chembl': out}, separators=(',', ':')).encode())


def main():
    if sys.argv[1:] == ['--counts']:
        return counts()
    out = {'rdkit': __import__('rdkit').__version__, 'sets': {}}
    for name, smis in sets().items():
        recs = []
        for s in smis:
            m = Chem.MolFromSmiles(s)
            recs.append(None if m is None else mol_record(m))
        out['sets'][name] = recs
        if name == 'bzr':
            out['bzr_smiles'] = smis
    with gzip.GzipFile(fileobj=sys.stdout.buffer, mode='wb', mtime=0) as f:
        f.write(json.dumps(out, separators=(',', ':')).encode())


if __name__ == '__main__':
    main()
