#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Writes ONNX backend-style test cases (model.onnx + test_data_set_0/*.pb) for the shape and indexing kernels in the
# opset versions and corners that ONNX 1.12's own node cases leave out (attribute forms of Slice/Split/Pad/TopK/Tile,
# Split-18 num_outputs, Pad-18 axes, Scatter*-18 max/min, GatherND batch_dims 2, strings, NaN, negative indices...).
# Expected outputs come from numpy. Usage: indexing_numpy_cases.py OUTPUT_DIR (Debian's /usr/bin/python3).
import numpy as np, onnx, os, shutil, sys
from onnx import helper, numpy_helper, TensorProto
OUT=sys.argv[1]
shutil.rmtree(OUT, ignore_errors=True); os.makedirs(OUT)
rng=np.random.default_rng(0)
def case(name, op, opset, inputs, outputs, **attrs):
    """inputs: list of (name, array or None); outputs: list of (name, array)."""
    node=helper.make_node(op, [n for n,_ in inputs], [n for n,_ in outputs], **attrs)
    gi=[helper.make_tensor_value_info(n, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[a.dtype], None) for n,a in inputs if n]
    go=[helper.make_tensor_value_info(n, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[a.dtype], None) for n,a in outputs]
    g=helper.make_graph([node], name, gi, go)
    m=helper.make_model(g, opset_imports=[helper.make_opsetid('', opset)]); m.ir_version=8
    d=os.path.join(OUT, 'test_'+name); os.makedirs(d+'/test_data_set_0')
    onnx.save(m, d+'/model.onnx')
    i=0
    for n,a in inputs:
        if not n: continue
        t=numpy_helper.from_array(a, n); open(f'{d}/test_data_set_0/input_{i}.pb','wb').write(t.SerializeToString()); i+=1
    for j,(n,a) in enumerate(outputs):
        t=numpy_helper.from_array(a, n); open(f'{d}/test_data_set_0/output_{j}.pb','wb').write(t.SerializeToString())
x=rng.standard_normal((3,4,5)).astype(np.float32)
# Slice
case('slice_v1_attr','Slice',1,[('x',x)],[('y',x[1:1000, :, -3:4])],starts=[1,-3],ends=[1000,4],axes=[0,2])
case('slice_v1_noaxes','Slice',9,[('x',x)],[('y',x[0:2, 1:3])],starts=[0,1],ends=[2,3])
case('slice_v10_int32_negstep','Slice',10,[('x',x),('s',np.array([-1,4],np.int32)),('e',np.array([-1000,0],np.int32)),('a',np.array([1,2],np.int32)),('st',np.array([-2,-3],np.int32))],[('y',x[:, -1::-2, 4:0:-3])])
case('slice_v13_int_types','Slice',13,[('x',(x*10).astype(np.int8)),('s',np.array([2],np.int64)),('e',np.array([-2**63],np.int64)),('a',np.array([0],np.int64)),('st',np.array([-1],np.int64))],[('y',(x*10).astype(np.int8)[2::-1])])
xs=np.array([['a','bb','c'],['d','e','ff']],dtype=object)
case('slice_string','Slice',13,[('x',xs),('s',np.array([1],np.int64)),('e',np.array([3],np.int64)),('a',np.array([1],np.int64))],[('y',xs[:,1:3])])
# Split
case('split_v1_input','Split',1,[('x',x),('sp',np.array([1,3],np.int64))],[('a',x[:,:1]),('b',x[:,1:])],axis=1)
case('split_v2_attr','Split',2,[('x',x)],[('a',x[:,:,:2]),('b',x[:,:,2:])],axis=2,split=[2,3])
case('split_v11_negaxis','Split',11,[('x',x)],[('a',x[:,:,:1]),('b',x[:,:,1:5])],axis=-1,split=[1,4])
case('split_v2_equal','Split',2,[('x',x)],[('a',x[:,:2]),('b',x[:,2:])],axis=1)
case('split_v18_num_outputs','Split',18,[('x',x)],[('a',x[:,:,:2]),('b',x[:,:,2:4]),('c',x[:,:,4:])],axis=2,num_outputs=3)
# Tile
case('tile_v1','Tile',1,[('x',x),('t',np.array(3,np.int64)),('ax',np.array(1,np.int64))],[('y',np.tile(x,(1,3,1)))])
case('tile_v6_bool','Tile',6,[('x',x>0),('r',np.array([2,1,2],np.int64))],[('y',np.tile(x>0,(2,1,2)))])
case('tile_zero','Tile',13,[('x',x),('r',np.array([2,0,1],np.int64))],[('y',np.tile(x,(2,0,1)))])
# Expand
case('expand_lower_rank_shape','Expand',8,[('x',x[:,:1,:]),('s',np.array([4,1],np.int64))],[('y',np.broadcast_to(x[:,:1,:],(3,4,5)).copy())])
case('expand_higher_rank','Expand',13,[('x',x[0,0]),('s',np.array([2,1,1],np.int64))],[('y',np.broadcast_to(x[0,0],(2,1,5)).copy())])
case('expand_string','Expand',13,[('x',xs[:1]),('s',np.array([3,1,1],np.int64))],[('y',np.broadcast_to(xs[:1],(3,1,3)).copy())])
# Pad
x2=rng.standard_normal((3,4)).astype(np.float32)
case('pad_v1_paddings','Pad',1,[('x',x2)],[('y',np.pad(x2,((1,0),(2,3)),constant_values=1.5))],paddings=[1,2,0,3],value=1.5)
case('pad_v2_reflect_big','Pad',2,[('x',x2)],[('y',np.pad(x2,((5,7),(9,2)),mode='reflect'))],pads=[5,9,7,2],mode='reflect')
case('pad_v2_edge','Pad',2,[('x',x2)],[('y',np.pad(x2,((1,2),(0,3)),mode='edge'))],pads=[1,0,2,3],mode='edge')
case('pad_v11_negative','Pad',11,[('x',x2),('p',np.array([-1,2,1,-2],np.int64))],[('y',np.pad(x2[1:,:2],((0,1),(2,0))))])
case('pad_v11_negative_reflect','Pad',11,[('x',x2),('p',np.array([-1,2,1,-1],np.int64))],[('y',np.pad(x2[1:,:3],((0,1),(2,0)),mode='reflect'))],mode='reflect')
xi=(x2*10).astype(np.int32)
case('pad_v13_int_value','Pad',13,[('x',xi),('p',np.array([0,1,0,1],np.int64)),('v',np.array(-7,np.int32))],[('y',np.pad(xi,((0,0),(1,1)),constant_values=-7))])
case('pad_v13_string','Pad',13,[('x',xs),('p',np.array([1,0,0,1],np.int64)),('v',np.array('z',dtype=object))],[('y',np.pad(xs,((1,0),(0,1)),constant_values='z'))])
case('pad_v18_axes','Pad',18,[('x',x),('p',np.array([1,2,0,1],np.int64)),('v',np.array(0.5,np.float32)),('a',np.array([-1,0],np.int64))],[('y',np.pad(x,((2,1),(0,0),(1,0)),constant_values=0.5))])
case('pad_v13_edge_bool','Pad',13,[('x',x2>0),('p',np.array([2,2,2,2],np.int64))],[('y',np.pad(x2>0,((2,2),(2,2)),mode='edge'))],mode='edge')
# TopK
xt=rng.integers(-3,3,(3,6)).astype(np.float32)
def topk(X,k,axis,largest):
    idx=np.argsort(-X if largest else X,axis=axis,kind='stable'); idx=np.take(idx,np.arange(k),axis=axis)
    return np.take_along_axis(X,idx,axis), idx.astype(np.int64)
v,i=topk(xt,4,1,True); case('topk_v1_attr','TopK',1,[('x',xt)],[('v',v),('i',i)],k=4)
v,i=topk(xt,2,0,True); case('topk_v10_input','TopK',10,[('x',xt),('k',np.array([2],np.int64))],[('v',v),('i',i)],axis=0)
xti=xt.astype(np.int32); v,i=topk(xti,3,1,False); case('topk_v11_int_smallest','TopK',11,[('x',xti),('k',np.array([3],np.int64))],[('v',v),('i',i)],largest=0)
xn=np.array([[1,np.nan,3,np.nan,-1]],np.float32)
case('topk_nan_largest','TopK',11,[('x',xn),('k',np.array([3],np.int64))],[('v',np.array([[np.nan,np.nan,3]],np.float32)),('i',np.array([[1,3,2]],np.int64))])
# Unique
xu=np.array([[1,0,0],[1,0,0],[2,3,4],[0,9,9],[2,3,4]],np.int64)
y,ind,inv,cnt=np.unique(xu,True,True,True,axis=0)
order=np.argsort(ind); remap=np.empty_like(order); remap[order]=np.arange(len(order))
case('unique_unsorted_axis','Unique',11,[('x',xu)],[('y',y[order]),('i',ind[order].astype(np.int64)),('v',remap[inv.reshape(-1)].astype(np.int64)),('c',cnt[order].astype(np.int64))],sorted=0,axis=0)
xsu=np.array(['b','a','b','c','a'],dtype=object)
case('unique_string','Unique',11,[('x',xsu)],[('y',np.array(['a','b','c'],dtype=object)),('i',np.array([1,0,3],np.int64)),('v',np.array([1,0,1,2,0],np.int64)),('c',np.array([2,2,1],np.int64))])
xun=np.array([2.0,np.nan,1.0,np.nan,-0.0,0.0],np.float32)
y,ind,inv,cnt=np.unique(xun,True,True,True)
case('unique_nan_zero','Unique',11,[('x',xun)],[('y',y),('i',ind.astype(np.int64)),('v',inv.reshape(-1).astype(np.int64)),('c',cnt.astype(np.int64))])
# DepthToSpace / SpaceToDepth
xd=rng.standard_normal((2,8,3,2)).astype(np.float32)
def d2s(x,b,mode):
    n,c,h,w=x.shape
    if mode=='DCR': t=x.reshape(n,b,b,c//(b*b),h,w).transpose(0,3,4,1,5,2)
    else: t=x.reshape(n,c//(b*b),b,b,h,w).transpose(0,1,4,2,5,3)
    return t.reshape(n,c//(b*b),h*b,w*b)
case('depthtospace_v1','DepthToSpace',1,[('x',xd)],[('y',d2s(xd,2,'DCR'))],blocksize=2)
case('depthtospace_v11_crd','DepthToSpace',11,[('x',xd)],[('y',d2s(xd,2,'CRD'))],blocksize=2,mode='CRD')
xsd=rng.standard_normal((1,2,4,6)).astype(np.float32)
case('spacetodepth_v1','SpaceToDepth',1,[('x',xsd)],[('y',xsd.reshape(1,2,2,2,3,2).transpose(0,3,5,1,2,4).reshape(1,8,2,3))],blocksize=2)
# Scatter v9, ScatterElements / ND opset 18 min/max
d=np.zeros((3,3),np.float32); idx=np.array([[1,0,2],[0,2,1]],np.int64); u=np.array([[1,2,3],[4,5,6]],np.float32)
e=d.copy()
for a in range(2):
    for b in range(3): e[idx[a,b],b]=u[a,b]
case('scatter_v9','Scatter',9,[('d',d),('i',idx),('u',u)],[('y',e)])
d=rng.integers(-5,5,(4,3)).astype(np.int32); idx=np.array([[0,1,1],[0,1,1]],np.int64); u=rng.integers(-5,5,(2,3)).astype(np.int32)
for red,f in [('max',np.maximum),('min',np.minimum)]:
    e=d.copy()
    for a in range(2):
        for b in range(3): e[a, idx[a,b]] = f(e[a, idx[a,b]], u[a,b])
    case('scatter_elements_v18_'+red,'ScatterElements',18,[('d',d),('i',idx),('u',u)],[('y',e)],axis=1,reduction=red)
    dn=rng.integers(-5,5,(4,3)).astype(np.int64); ind=np.array([[1],[3],[1]],np.int64); un=rng.integers(-5,5,(3,3)).astype(np.int64)
    e=dn.copy()
    for t in range(3): e[ind[t,0]]=f(e[ind[t,0]],un[t])
    case('scatternd_v18_'+red,'ScatterND',18,[('d',dn),('i',ind),('u',un)],[('y',e)],reduction=red)
e=d.copy(); e[0,1]=u[0,0]; 
case('scatternd_v11_scalar_slices','ScatterND',11,[('d',d),('i',np.array([[0,1]],np.int64)),('u',np.array([u[0,0]],np.int32))],[('y',e)])
# GatherND batch_dims 2, negative
gd=rng.standard_normal((2,3,4,5)).astype(np.float32); gi=np.array([[[[1],[-1]],[[0],[2]],[[3],[0]]],[[[1],[1]],[[2],[-4]],[[0],[0]]]],np.int64)
e=np.zeros((2,3,2,5),np.float32)
for a in range(2):
    for b in range(3):
        for c in range(2): e[a,b,c]=gd[a,b,gi[a,b,c,0]]
case('gathernd_batch2','GatherND',12,[('d',gd),('i',gi)],[('y',e)],batch_dims=2)
case('gathernd_v11_full','GatherND',11,[('d',gd),('i',np.array([[0,1,2,3],[1,2,3,4]],np.int64))],[('y',np.array([gd[0,1,2,3],gd[1,2,3,4]],np.float32))])
# OneHot v9 float indices, axis 0
ind=np.array([[0.0,2.9],[-1.0,7.0]],np.float32)
e=np.zeros((4,2,2),np.float64)+3
for a in range(2):
    for b in range(2):
        k=int(ind[a,b]); k=k+4 if k<0 else k
        if 0<=k<4: e[k,a,b]=9
case('onehot_v9_float_axis0','OneHot',9,[('i',ind),('d',np.array([4.0],np.float32)),('v',np.array([3,9],np.float64))],[('y',e)],axis=0)
# NonZero
xz=np.array([[0,1,0],[2,0,3]],np.int16)
case('nonzero_int16','NonZero',9,[('x',xz)],[('y',np.array(np.nonzero(xz),np.int64))])
case('nonzero_bool','NonZero',13,[('x',xz>0)],[('y',np.array(np.nonzero(xz>0),np.int64))])
# Compress
case('compress_short_condition','Compress',11,[('x',x2),('c',np.array([True,False],bool))],[('y',np.compress([True,False],x2,axis=0))],axis=0)
case('compress_flat','Compress',9,[('x',x2),('c',np.array([0,1,1,0,0,1],bool))],[('y',np.compress([0,1,1,0,0,1],x2))])
# EyeLike
case('eyelike_k_neg','EyeLike',9,[('x',np.zeros((4,3),np.int32))],[('y',np.eye(4,3,k=-2,dtype=np.int32))],k=-2)
case('eyelike_k_far','EyeLike',9,[('x',np.zeros((2,3),np.float32))],[('y',np.eye(2,3,k=9,dtype=np.float32))],k=9)
case('eyelike_dtype_bool','EyeLike',9,[('x',np.zeros((3,3),np.float32))],[('y',np.eye(3,dtype=bool))],dtype=TensorProto.BOOL)
# Range
case('range_int64','Range',11,[('a',np.array(10,np.int64)),('b',np.array(-7,np.int64)),('c',np.array(-3,np.int64))],[('y',np.arange(10,-7,-3,dtype=np.int64))])
case('range_double_empty','Range',11,[('a',np.array(1.0)),('b',np.array(0.0)),('c',np.array(0.5))],[('y',np.arange(1.0,0.0,0.5))])
case('range_int16','Range',11,[('a',np.array(1,np.int16)),('b',np.array(9,np.int16)),('c',np.array(4,np.int16))],[('y',np.arange(1,9,4,dtype=np.int16))])
# ReverseSequence batch_axis 0
xr=rng.standard_normal((3,4,2)).astype(np.float32); lens=np.array([4,1,2],np.int64)
e=xr.copy()
for b in range(3): e[b,:lens[b]]=xr[b,:lens[b]][::-1]
case('reversesequence_batch0_3d','ReverseSequence',10,[('x',xr),('l',lens)],[('y',e)],batch_axis=0,time_axis=1)
# Trilu
xt3=rng.integers(0,9,(2,3,4)).astype(np.int64)
case('trilu_int_lower_k','Trilu',14,[('x',xt3),('k',np.array(1,np.int64))],[('y',np.tril(xt3,1))],upper=0)
case('trilu_huge_k','Trilu',14,[('x',xt3),('k',np.array(-2**62,np.int64))],[('y',np.triu(xt3,-2**62))])
# ConstantOfShape
case('constantofshape_scalar_int64','ConstantOfShape',9,[('s',np.array([],np.int64))],[('y',np.array(5,np.int64))],value=numpy_helper.from_array(np.array([5],np.int64)))
# GatherElements int32 indices, 3D
ge=rng.standard_normal((2,3,4)).astype(np.float32); gi=rng.integers(-3,3,(2,2,4)).astype(np.int32)
case('gather_elements_int32_axis1','GatherElements',11,[('d',ge),('i',gi)],[('y',np.take_along_axis(ge,np.where(gi<0,gi+3,gi),1))],axis=1)
# Size
case('size_v1_string','Size',1,[('x',xs)],[('y',np.array(6,np.int64))])
print('generated', len(os.listdir(OUT)))
