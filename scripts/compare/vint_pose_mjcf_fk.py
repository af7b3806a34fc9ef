"""Peer forward kinematics of the vendored Shadow Hand MJCF with MuJoCo.

Prints the world positions of a few touch sites and bodies at fixed joint
vectors, for crates/vint-pose/tests/io.rs (the test asserts our MJCF reader's
forward kinematics against these numbers).

    python -m venv target/venv-vint && target/venv-vint/bin/pip install mujoco numpy
    target/venv-vint/bin/python scripts/compare/vint_pose_mjcf_fk.py

The link meshes (STL) are not vendored, so mesh assets and mesh geoms are
removed before loading; they do not affect kinematics.
"""
import gzip
import pathlib
import xml.etree.ElementTree as ET

import mujoco
import numpy as np

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "shadow-hand"


def load(name):
    return ET.fromstring(gzip.open(DATA / f"{name}.gz").read().decode())


def expand(el):
    out = []
    for c in list(el):
        if c.tag == "include":
            out.extend(expand(load(c.get("file"))))
        else:
            c[:] = expand(c)
            out.append(c)
    return out


root = load("manipulate_block_touch_sensors.xml")
root[:] = expand(root)
for parent in root.iter():
    for c in list(parent):
        if c.tag in ("mesh", "texture", "material") or c.get("type") == "mesh" or c.get("mesh") or c.get("class") == "robot0:D_Vizual":
            parent.remove(c)
        else:
            c.attrib.pop("material", None)
for d in root.iter("default"):
    for g in d.findall("geom"):
        for k in ("type", "material"):
            g.attrib.pop(k, None)
comp = root.find("compiler")
for k in ("meshdir", "texturedir"):
    comp.attrib.pop(k, None)
model = mujoco.MjModel.from_xml_string(ET.tostring(root, encoding="unicode"))
data = mujoco.MjData(model)
hinge = [j for j in range(model.njnt) if int(model.jnt_type[j]) in (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))]
print("dof joints", len(hinge), [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j) for j in hinge][:3])
sites = ["robot0:T_palm_b0", "robot0:T_fftip_tip", "robot0:T_thtip_tip", "robot0:T_lfmetacarpal_front", "robot0:Tch_fftip"]
bodies = ["robot0:palm", "robot0:ffdistal", "robot0:thdistal"]
for label, q in [("zero", np.zeros(len(hinge))), ("ramp", np.array([0.5 * np.sin(0.7 * k + 0.3) for k in range(len(hinge))]))]:
    data.qpos[:] = model.qpos0
    for k, j in enumerate(hinge):
        data.qpos[model.jnt_qposadr[j]] = q[k]
    mujoco.mj_kinematics(model, data)
    print(label)
    for s in sites:
        i = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, s)
        print(f'    ("{s}", [{", ".join(f"{v:.12f}" for v in data.site_xpos[i])}]),')
    for b in bodies:
        i = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, b)
        print(f'    ("{b}", [{", ".join(f"{v:.12f}" for v in data.xpos[i])}]),')
